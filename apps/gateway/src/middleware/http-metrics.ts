import type { GatewayMetrics } from "@chorus/platform";
import type { NextFunction, Request, RequestHandler, Response } from "express";

/** Whether an Express path pattern (`/api/status/:id`) describes `path`; only plain and `:param` segments. */
function patternMatches(pattern: string, path: string): boolean {
  if (/[*{}()]/.test(pattern)) return false;
  const expected = pattern.split("/");
  const actual = path.split("/");
  return expected.length === actual.length && expected.every((segment, i) => (segment.startsWith(":") ? actual[i] !== "" : segment.toLowerCase() === actual[i]?.toLowerCase()));
}

/**
 * The label for a request: the pattern of the route that took it (`/api/text/:model`), never the
 * URL, so a scanner trying a million paths adds one series ("unmatched"), not a million. A route
 * with several paths (`["/api/v2/status/:id", "/api/status/:id"]`) is labelled with the one that
 * matched, which keeps the twin endpoints apart. Requests answered before any route was matched
 * (401 from authentication, 404 for unknown paths) are "unmatched".
 */
export function routeLabel(req: Request): string {
  const route: { path?: unknown } | undefined = req.route;
  if (!route) return "unmatched";
  const base = req.baseUrl;
  if (typeof route.path === "string") return base + route.path;
  if (Array.isArray(route.path)) {
    const path = (req.originalUrl.split("?")[0] ?? "").replace(/\/$/, "");
    const patterns = route.path.map(String);
    const hit = patterns.find((pattern) => patternMatches(base + pattern, path));
    return hit === undefined ? base + patterns.join("|") : base + hit;
  }
  return String(route.path);
}

/**
 * Counts and times every response (`http_requests_total`, `http_request_duration_seconds`). The
 * route is read when the response is finished, because only then has the router matched it.
 * Mount it first, before every router, so 401s and 404s are counted too.
 */
export function httpMetrics(metrics: Pick<GatewayMetrics, "recordHttpRequest">): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.recordHttpRequest(req.method, routeLabel(req), res.statusCode, seconds);
    });
    next();
  };
}
