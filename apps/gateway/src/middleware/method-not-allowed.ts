import { ApiError } from "@chorus/contracts";
import type { Express, RequestHandler } from "express";

/** The parts of Express's router this reads: each route layer, whether it matches a path, its methods. */
interface RouteLayer {
  route?: { methods: Record<string, boolean> };
  match(path: string): unknown;
}

/**
 * A known path asked with a method it does not take (GET /api/text/default) is 405 with `Allow`,
 * not 404: the caller learns the path is right. Runs after authentication, with the unknown paths.
 */
export function methodNotAllowed(app: Express): RequestHandler {
  return (req, res, next) => {
    const layers = (app as unknown as { router: { stack: RouteLayer[] } }).router.stack;
    const allowed = new Set<string>();
    for (const layer of layers) {
      if (layer.route && layer.match(req.path))
        Object.keys(layer.route.methods).forEach((method) => allowed.add(method.toUpperCase()));
    }
    if (allowed.size === 0) return next();
    if (allowed.has("GET")) allowed.add("HEAD");
    const allow = [...allowed].sort().join(", ");
    res.setHeader("Allow", allow);
    next(new ApiError("METHOD_NOT_ALLOWED", `${req.method} is not allowed on ${req.path}; allowed: ${allow}`));
  };
}
