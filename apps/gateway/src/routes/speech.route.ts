import { ApiError, grants } from "@chorus/contracts";
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { authenticatedKey } from "../middleware/authenticate.js";
import { jsonBody } from "../middleware/json-body.js";

function speechScope(req: Request, _res: Response, next: NextFunction): void {
  if (grants(authenticatedKey(req).scopes, { kind: "tts" })) return next();
  next(new ApiError("FORBIDDEN", "this API key has no access to text-to-speech (scope tts)"));
}

/** POST /api/audio/full and POST /api/tts are the same operation. */
export function speechRouter(limit: RequestHandler): Router {
  const router = Router();
  const handler = () => {
    throw new ApiError("SERVICE_UNAVAILABLE", "text-to-speech is not available yet on this deployment");
  };
  router.post(["/api/audio/full", "/api/tts"], speechScope, limit, jsonBody(), handler);
  return router;
}
