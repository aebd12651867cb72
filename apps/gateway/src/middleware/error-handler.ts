import type { RedisClient } from "@chorus/platform/redis";
import { randomUUID } from "node:crypto";
import { ApiError, REQUEST_LIMITS } from "@chorus/contracts";
import type { ErrorRequestHandler, Request, Response } from "express";
import { requestLogger } from "./request-context.js";

/** body-parser's errors carry a `type`; map each to a stable code. */
function fromBodyParser(error: { type?: string; message?: string }): ApiError | null {
  switch (error.type ?? "") {
    case "entity.parse.failed":
      return new ApiError("INVALID_JSON", "the request body is not valid JSON");
    case "entity.too.large":
      return new ApiError("PAYLOAD_TOO_LARGE", `the request body is larger than ${REQUEST_LIMITS.maxBodyBytes} bytes`);
    case "charset.unsupported":
    case "encoding.unsupported":
      return new ApiError("UNSUPPORTED_MEDIA_TYPE", error.message ?? "unsupported body encoding");
    case "request.aborted":
    case "request.size.invalid":
    case "stream.encoding.set":
      return ApiError.invalidParameter("body", "object", "the request body could not be read");
    default:
      return null;
  }
}

// The last ones are a Redis Cluster's while a node fails over or slots move (ioredis' own and the nodes').
const REDIS_ERRORS =
  /enableOfflineQueue|Connection is closed|Command timed out|ECONNREFUSED|ECONNRESET|MaxRetriesPerRequest|Redis did not|READONLY|LOADING|CLUSTERDOWN|TRYAGAIN|Failed to refresh slots cache|None of startup nodes is available|Too many Cluster redirections|Cluster isn't ready/;

function isRedisUnavailable(error: unknown, connections: RedisClient[]): boolean {
  if (connections.some((redis) => redis.status !== "ready")) return true;
  return error instanceof Error && REDIS_ERRORS.test(`${error.name} ${error.message}`);
}

/**
 * Express and body-parser raise http-errors for what the client sent wrong without a `type` we
 * know: a route parameter with a broken percent-escape, a body whose Content-Encoding lies. Their
 * 4xx status is trusted; they become envelope errors instead of falling through to a 500.
 */
function fromClientHttpError(error: { status?: unknown; message?: string }): ApiError | null {
  if (typeof error.status !== "number" || error.status < 400 || error.status > 499) return null;
  if (error instanceof URIError || /Failed to decode param/.test(error.message ?? "")) {
    return ApiError.invalidParameter(
      "path",
      "percent-encoded UTF-8",
      "the URL path contains an invalid percent-escape",
    );
  }
  if (error.status === 404) return new ApiError("NOT_FOUND", "not found");
  if (error.status === 413) return new ApiError("PAYLOAD_TOO_LARGE", "the request body is too large");
  if (error.status === 415) return new ApiError("UNSUPPORTED_MEDIA_TYPE", "unsupported body encoding");
  return ApiError.invalidParameter(
    "body",
    "object",
    "the request body could not be read (is its Content-Encoding right?)",
  );
}

/** Whatever was thrown, as the ApiError the client is told (an unexpected one is logged with an id). */
export function toApiError(error: unknown, req: Request, connections: RedisClient[]): ApiError {
  if (error instanceof ApiError) return error;
  const fromRequest =
    typeof error === "object" && error !== null ? (fromBodyParser(error) ?? fromClientHttpError(error)) : null;
  if (fromRequest) return fromRequest;
  if (isRedisUnavailable(error, connections)) {
    requestLogger(req).warn("redis unavailable", { error: String(error) });
    return new ApiError(
      "SERVICE_UNAVAILABLE",
      "the service is temporarily unavailable; retry with exponential backoff",
    );
  }
  const errorId = randomUUID();
  requestLogger(req).error("unexpected error", {
    errorId,
    error: error instanceof Error ? error.stack : String(error),
  });
  return new ApiError("INTERNAL_ERROR", `internal error (reference ${errorId})`, { errorId });
}

/** Everything that goes wrong leaves as the spec's error envelope; no stack trace leaves the process. */
export function errorHandler(connections: RedisClient[]): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const apiError = toApiError(error, req, connections);
    if (res.headersSent) {
      res.end();
      return;
    }
    setRetryHeaders(res, apiError);
    res.status(apiError.httpStatus).json(apiError.toEnvelope());
  };
}

/**
 * A 429 of a rate limiter carries the limiter's own Retry-After; a cap's 429, and a 503, say theirs
 * here. A failure that would repeat says `x-should-retry: false` (the OpenAI SDKs' own header).
 */
export function setRetryHeaders(res: Response, apiError: ApiError): void {
  if (apiError.code === "SERVICE_UNAVAILABLE" || apiError.retryAfterSeconds !== undefined)
    res.setHeader("Retry-After", String(apiError.retryAfterSeconds ?? 1));
  if (apiError.shouldRetry !== undefined) res.setHeader("x-should-retry", String(apiError.shouldRetry));
}
