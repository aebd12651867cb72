import type { GatewayMetrics } from "@chorus/platform";
import type { NextFunction, Request, RequestHandler, Response } from "express";

/**
 * The label for a request: the pattern of the route that took it (`/api/text/:model`), never the
 * URL, so a scanner trying a million paths adds one series ("unmatched"), not a million. Every route
 * has one path (the twin status endpoints are two routes), so the pattern needs no matching here.
 * The one RegExp route matches exactly `/metrics`, so its path is its label. Requests answered
 * before any route was matched (401 from authentication, 404 for unknown paths) are "unmatched".
 */
export function routeLabel(req: Request): string {
  const route: { path?: unknown } | undefined = req.route;
  if (!route) return "unmatched";
  return route.path instanceof RegExp ? req.path : req.baseUrl + String(route.path);
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
