import { ApiError, toOpenAiError } from "@chorus/contracts";
import type { RedisClient } from "@chorus/platform/redis";
import type { Express, ErrorRequestHandler, RequestHandler } from "express";
import { setRetryHeaders, toApiError } from "../middleware/error-handler.js";
import { methodNotAllowed } from "../middleware/method-not-allowed.js";

/** Whether a path belongs to the OpenAI-compatible front door, whose errors take OpenAI's envelope. */
export const isOpenAiPath = (path: string): boolean => path === "/v1" || path.startsWith("/v1/");

/** Runs `handler` for /v1 paths only (a path-less layer: `req.path` stays whole for methodNotAllowed). */
function onOpenAiPaths(handler: RequestHandler): RequestHandler {
  return (req, res, next) => (isOpenAiPath(req.path) ? handler(req, res, next) : next());
}

/**
 * What /v1 answers where no /v1 route matched and on every error: as the native API does (401
 * before anything else, then 405 or 404), but in OpenAI's envelope, which the official SDKs read
 * into their typed errors. Registered after the /v1 routes and before the native fallbacks.
 */
export function addOpenAiFallbacks(app: Express, authenticate: RequestHandler, connections: RedisClient[]): void {
  app.use(onOpenAiPaths(authenticate));
  app.use(onOpenAiPaths(methodNotAllowed(app)));
  app.use(onOpenAiPaths((req, _res, next) => next(new ApiError("NOT_FOUND", `no endpoint ${req.method} ${req.path}`))));
  app.use(openAiErrorHandler(connections));
}

function openAiErrorHandler(connections: RedisClient[]): ErrorRequestHandler {
  return (error, req, res, next) => {
    if (!isOpenAiPath(req.path)) return next(error);
    const apiError = toApiError(error, req, connections);
    if (res.headersSent) return void res.end();
    setRetryHeaders(res, apiError);
    res.status(apiError.httpStatus).json(toOpenAiError(apiError));
  };
}
