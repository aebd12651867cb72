import { ApiError, type OperationLimits } from "@chorus/contracts";
import type { ApiKeyLookup, ApiKeyStore, GatewayMetrics, Logger, RedisKeys, StatusStore } from "@chorus/platform";
import express, { type Express } from "express";
import type { Redis } from "ioredis";
import { authenticate } from "./middleware/authenticate.js";
import { errorHandler } from "./middleware/error-handler.js";
import { httpMetrics } from "./middleware/http-metrics.js";
import { createRateLimiters } from "./middleware/rate-limit.js";
import { requestContext } from "./middleware/request-context.js";
import { addHealthRoutes } from "./routes/health.route.js";
import { addMetricsRoute } from "./routes/metrics.route.js";
import { addSpeechRoutes } from "./routes/speech.route.js";
import { addStatusRoutes } from "./routes/status.route.js";
import { addTextRoutes } from "./routes/text.route.js";
import type { SpeechJobs } from "./services/speech-jobs.service.js";
import type { IdempotencyKeys } from "./services/idempotency.js";
import type { QueueDepth } from "./services/queue-depth.js";
import type { TextJobs } from "./services/text-jobs.service.js";

export interface GatewayDeps {
  /** Per-request commands: API keys, rate limits, status reads, idempotency. */
  redis: Redis;
  /** BullMQ's connection (jobs and the status records created with them). */
  queueRedis: Redis;
  keys: RedisKeys;
  logger: Logger;
  apiKeys: ApiKeyStore;
  /** How requests find their key: the store, usually behind a short in-process cache. */
  keyLookup: ApiKeyLookup;
  statuses: StatusStore;
  textJobs: TextJobs;
  idempotency: IdempotencyKeys;
  queueDepth: QueueDepth;
  maxQueueDepth: number;
  /** How long delivered speech is kept for retries with the same Idempotency-Key. */
  audioKeepSeconds: number;
  /** Null where speech is switched off (the speech routes then answer 503). */
  speechJobs: SpeechJobs | null;
  limits: OperationLimits;
  rateLimitWindowMs: number;
  authFailureLimit: number;
  trustProxy: boolean | number | string;
  metrics: GatewayMetrics;
  /** METRICS_TOKEN: when set, GET /metrics needs it as a Bearer token. */
  metricsToken: string | undefined;
}

/** Every Redis connection the gateway holds: start-up, /readyz and the 503 mapping check them all. */
export function redisConnections(deps: Pick<GatewayDeps, "redis" | "queueRedis">): Redis[] {
  return [deps.redis, deps.queueRedis];
}

/**
 * The whole HTTP surface; never listens (main.ts does), so tests drive it with supertest.
 * Routes sit in one flat table on the app rather than in a Router per file: every mounted Router is
 * entered and left by every request that passes it, a few µs each (measured with npm run bench).
 * Status polls, the most frequent request, come first.
 */
export function buildApp(deps: GatewayDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("trust proxy", deps.trustProxy);
  app.use(requestContext(deps.logger));
  app.use(httpMetrics(deps.metrics));
  addHealthRoutes(app, redisConnections(deps));
  addMetricsRoute(app, deps.metrics, deps.metricsToken);

  const limiters = createRateLimiters({
    redis: deps.redis,
    keys: deps.keys,
    logger: deps.logger,
    limits: deps.limits,
    windowMs: deps.rateLimitWindowMs,
    authFailureLimit: deps.authFailureLimit,
    metrics: deps.metrics,
  });
  app.use(authenticate(deps.keyLookup, limiters.authFailure));
  addStatusRoutes(app, deps.statuses, deps.textJobs, limiters.status);
  addTextRoutes(app, { jobs: deps.textJobs, idempotency: deps.idempotency, queueDepth: deps.queueDepth, maxQueueDepth: deps.maxQueueDepth }, limiters.text);
  addSpeechRoutes(app, { speech: deps.speechJobs, idempotency: deps.idempotency, keepSeconds: deps.audioKeepSeconds }, limiters.tts);
  app.use((req, _res, next) => next(new ApiError("NOT_FOUND", `no endpoint ${req.method} ${req.path}`)));
  app.use(errorHandler(redisConnections(deps)));
  return app;
}
