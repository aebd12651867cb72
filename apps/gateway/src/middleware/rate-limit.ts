import { ApiError, type ModelId, type OperationLimits } from "@chorus/contracts";
import type { Logger } from "@chorus/platform/logger";
import type { GatewayMetrics } from "@chorus/platform/metrics";
import type { RedisKeys, RedisClient } from "@chorus/platform/redis";
import type { Request, RequestHandler, Response } from "express";
import { ipKeyGenerator, rateLimit, type RateLimitInfo } from "express-rate-limit";
import type { Cluster } from "ioredis";
import type { RedisReply, SendCommandClusterFn } from "rate-limit-redis";
import type { LimitPolicy } from "../admission/limit-policy.js";
import { ResilientRedisStore } from "./resilient-redis-store.js";
import { authenticatedKey } from "./authenticate.js";

export interface RateLimitDeps {
  redis: RedisClient;
  keys: RedisKeys;
  logger: Logger;
  /** Each key's per-minute budgets: its own, else the deployment's. */
  limits: LimitPolicy;
  windowMs: number;
  authFailureLimit: number;
  metrics?: Pick<GatewayMetrics, "recordRateLimitRejection">;
}

export interface RateLimiters {
  /** The per-model text budget (one counter per key and model). */
  text(model: ModelId): RequestHandler;
  tts: RequestHandler;
  status: RequestHandler;
  /**
   * After `status` has charged a request one poll: charges it `units(req) - 1` more (batch status,
   * one poll per id); 429 for the whole request when fewer are left.
   */
  statusUnits: (units: (req: Request) => number) => RequestHandler;
  authFailure: RequestHandler;
}

/**
 * rate-limit-redis loads its scripts with SCRIPT LOAD, which names no key: on a Redis Cluster that
 * would reach one node while each EVALSHA goes to the node of its client's key, so there it is sent
 * to every master (a node that still misses it answers NOSCRIPT, and the store loads it again).
 */
function sendCommand(redis: RedisClient): SendCommandClusterFn {
  // Not an async function: every limited request passes here, and each async layer costs a promise.
  return ({ command: [name = "", ...args] }) => {
    if (redis.isCluster && name.toUpperCase() === "SCRIPT") {
      return Promise.all((redis as Cluster).nodes("master").map((node) => node.call(name, ...args))).then(
        (replies) => replies[0] as RedisReply,
      );
    }
    return redis.call(name, ...args) as Promise<RedisReply>;
  };
}

function redisStore(deps: RateLimitDeps, name: string): ResilientRedisStore {
  return new ResilientRedisStore({ prefix: deps.keys.rateLimit(name), sendCommandCluster: sendCommand(deps.redis) });
}

function rejection(deps: RateLimitDeps, name: string): ApiError {
  deps.metrics?.recordRateLimitRejection(name);
  return new ApiError("RATE_LIMITED", `rate limit exceeded for ${name}; retry after the time in Retry-After (seconds)`);
}

function limiter(
  deps: RateLimitDeps,
  name: string,
  limit: (req: Request) => number,
  key: (req: Request) => string,
  store = redisStore(deps, name),
): RequestHandler {
  return rateLimit({
    windowMs: deps.windowMs,
    limit,
    keyGenerator: key,
    // X-RateLimit-Limit / -Remaining / -Reset (Unix epoch seconds), plus Retry-After on 429.
    legacyHeaders: true,
    standardHeaders: false,
    // Its checks of the configuration run on every request; ours is fixed and covered by tests.
    validate: false,
    store,
    handler: (_req, _res, next) => next(rejection(deps, name)),
    logger: {
      error: (error: unknown, message?: string) =>
        deps.logger.warn(message ?? "rate limiter error", { error: String(error) }),
      warn: (warning: unknown, message?: string) =>
        deps.logger.warn(message ?? "rate limiter warning", { warning: String(warning) }),
    },
  });
}

/**
 * express-rate-limit counts one hit a request (it has no per-request cost), so the
 * units past the first go to the same store, one `increment` each. If they overdraw the budget
 * they are given back and the whole batch is refused: it then costs one unit, as any refused poll.
 */
async function chargeMore(
  deps: RateLimitDeps,
  store: ResilientRedisStore,
  name: string,
  units: number,
  req: Request,
  res: Response,
): Promise<void> {
  const info = (req as Request & { rateLimit: RateLimitInfo }).rateLimit;
  const extra = Array.from({ length: units - 1 }, () => info.key);
  const used = Math.max(
    info.used,
    ...(await Promise.all(extra.map((key) => store.increment(key)))).map((hits) => hits.totalHits),
  );
  if (used > info.limit) {
    await Promise.all(extra.map((key) => store.decrement(key)));
    res.setHeader(
      "Retry-After",
      String(Math.max(0, Math.ceil(((info.resetTime?.getTime() ?? Date.now()) - Date.now()) / 1000))),
    );
    throw rejection(deps, name);
  }
  res.setHeader("X-RateLimit-Remaining", String(Math.max(0, info.limit - used)));
}

function chargeUnits(deps: RateLimitDeps, store: ResilientRedisStore, name: string) {
  return (units: (req: Request) => number): RequestHandler =>
    (req, res, next) => {
      chargeMore(deps, store, name, units(req), req, res).then(() => next(), next);
    };
}

/** Budgets are per API key and per operation (text per model); a key may override each limit. */
export function createRateLimiters(deps: RateLimitDeps): RateLimiters {
  const limitFor = (op: keyof OperationLimits) => (req: Request) => deps.limits.perMinute(authenticatedKey(req), op);
  const byKey = (req: Request) => authenticatedKey(req).id;
  const statusStore = redisStore(deps, "status");
  return {
    text: textLimiters(deps, limitFor("text")),
    tts: limiter(deps, "tts", limitFor("tts"), byKey),
    status: limiter(deps, "status", limitFor("status"), byKey, statusStore),
    statusUnits: chargeUnits(deps, statusStore, "status"),
    authFailure: limiter(
      deps,
      "auth-failures",
      () => deps.authFailureLimit,
      (req) => ipKeyGenerator(req.ip ?? "unknown"),
    ),
  };
}

/**
 * One limiter a model, each counting per key and model under the text prefix (a store each, as
 * express-rate-limit expects), made when a model is first asked for.
 */
function textLimiters(deps: RateLimitDeps, limit: (req: Request) => number): (model: ModelId) => RequestHandler {
  const byModel = new Map<ModelId, RequestHandler>();
  return (model) => {
    let handler = byModel.get(model);
    if (!handler) {
      handler = limiter(deps, "text", limit, (req) => `${authenticatedKey(req).id}:${model}`);
      byModel.set(model, handler);
    }
    return handler;
  };
}
