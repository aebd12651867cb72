import { ApiError, type OperationLimits } from "@chorus/contracts";
import type { GatewayMetrics, Logger, RedisKeys } from "@chorus/platform";
import type { Request, RequestHandler } from "express";
import { ipKeyGenerator, rateLimit } from "express-rate-limit";
import type { Redis } from "ioredis";
import { ResilientRedisStore } from "./resilient-redis-store.js";
import { authenticatedKey } from "./authenticate.js";

export interface RateLimitDeps {
  redis: Redis;
  keys: RedisKeys;
  logger: Logger;
  limits: OperationLimits;
  windowMs: number;
  authFailureLimit: number;
  metrics?: Pick<GatewayMetrics, "recordRateLimitRejection">;
}

export interface RateLimiters {
  text: RequestHandler;
  tts: RequestHandler;
  status: RequestHandler;
  authFailure: RequestHandler;
}

function limiter(deps: RateLimitDeps, name: string, limit: (req: Request) => number, key: (req: Request) => string): RequestHandler {
  return rateLimit({
    windowMs: deps.windowMs,
    limit,
    keyGenerator: key,
    // X-RateLimit-Limit / -Remaining / -Reset (Unix epoch seconds), plus Retry-After on 429.
    legacyHeaders: true,
    standardHeaders: false,
    // Its checks of the configuration run on every request; ours is fixed and covered by tests.
    validate: false,
    store: new ResilientRedisStore({
      prefix: deps.keys.rateLimit(name),
      sendCommand: (command: string, ...args: string[]) => deps.redis.call(command, ...args) as never,
    }),
    handler: (_req, _res, next) => {
      deps.metrics?.recordRateLimitRejection(name);
      next(new ApiError("RATE_LIMITED", `rate limit exceeded for ${name}; retry after the time in Retry-After (seconds)`));
    },
    logger: {
      error: (error: unknown, message?: string) => deps.logger.warn(message ?? "rate limiter error", { error: String(error) }),
      warn: (warning: unknown, message?: string) => deps.logger.warn(message ?? "rate limiter warning", { warning: String(warning) }),
    },
  });
}

/** Budgets are per API key and per operation (text per model); a key may override each limit. */
export function createRateLimiters(deps: RateLimitDeps): RateLimiters {
  const limitFor = (op: keyof OperationLimits) => (req: Request) => authenticatedKey(req).limits[op] ?? deps.limits[op];
  return {
    text: limiter(deps, "text", limitFor("text"), (req) => `${authenticatedKey(req).id}:${String(req.params.model)}`),
    tts: limiter(deps, "tts", limitFor("tts"), (req) => authenticatedKey(req).id),
    status: limiter(deps, "status", limitFor("status"), (req) => authenticatedKey(req).id),
    authFailure: limiter(
      deps,
      "auth-failures",
      () => deps.authFailureLimit,
      (req) => ipKeyGenerator(req.ip ?? "unknown"),
    ),
  };
}
