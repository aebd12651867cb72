import type { Request } from "express";

/**
 * The label for a request: the pattern of the route that took it (`/api/text/:model`), never the
 * URL, so a scanner trying a million paths adds one series ("unmatched"), not a million. Every route
 * has one path (the twin status endpoints are two routes), so the pattern needs no matching here.
 * The one RegExp route matches exactly `/metrics`, so its path is its label. A failed
 * authentication on an API route counts under that route; requests no route took (an unknown path,
 * with its 401 or 404) are "unmatched".
 */
export function routeLabel(req: Request): string {
  const route = req.route as { path?: unknown } | undefined;
  if (!route) return "unmatched";
  return route.path instanceof RegExp ? req.path : req.baseUrl + String(route.path);
}
