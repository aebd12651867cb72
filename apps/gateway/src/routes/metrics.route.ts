import { ApiError } from "@chorus/contracts";
import { metricsRequestAllowed, type GatewayMetrics } from "@chorus/platform/metrics";
import type { IRouter } from "express";

/** Exactly `/metrics`: a RegExp route is case-sensitive and strict whatever the app's settings. */
export const METRICS_PATH = /^\/metrics$/;

/**
 * `GET /metrics` in Prometheus text format. Needs no API key (Prometheus has none): it sits in the
 * route table before the catch-all authentication. When `token` (METRICS_TOKEN) is set, the scrape
 * must send `Authorization: Bearer <token>`.
 * Case-sensitive and strict, so `/METRICS` or `/metrics/` cannot slip past a proxy rule that
 * hides exactly `/metrics` (deploy/nginx/nginx.conf) and reach this handler.
 */
export function addMetricsRoute(
  router: IRouter,
  metrics: Pick<GatewayMetrics, "render" | "contentType">,
  token: string | undefined,
): void {
  router.get(METRICS_PATH, async (req, res) => {
    if (!metricsRequestAllowed(req.headers.authorization, token)) {
      throw new ApiError("UNAUTHORIZED", "metrics need 'Authorization: Bearer <METRICS_TOKEN>'");
    }
    const text = await metrics.render();
    res.setHeader("Content-Type", metrics.contentType);
    res.setHeader("Cache-Control", "no-store");
    res.send(text);
  });
}
