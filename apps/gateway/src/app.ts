import { ApiError, type ChatLimits, type ModelId } from "@chorus/contracts";
import { type ApiKeyLookup, type ApiKeyStore, type ApiKeyUsage, type KeyLastUsed } from "@chorus/platform/api-keys";
import type { UsageBudgetLedger } from "@chorus/platform/budgets";
import { type Logger } from "@chorus/platform/logger";
import type { FileStore } from "@chorus/platform/files";
import type { BatchStore } from "@chorus/platform/batches";
import type { BatchFeeder } from "./batches/batch-feeder.js";
import { type GatewayMetrics } from "@chorus/platform/metrics";
import { type RedisKeys, type RedisClient } from "@chorus/platform/redis";
import { ModelFeatures, RequestIndex, type StatusStore } from "@chorus/platform/scheduler";
import { type SpeechAudioStore } from "@chorus/platform/speech-audio";
import type { UsageReader } from "@chorus/platform/usage";
import type { Queue } from "bullmq";
import express, { type Express, type Request, type Response } from "express";
import { addAdminRoutes } from "./admin/admin-routes.js";
import { requestBudgets } from "./admission/budgets.js";
import type { WebhookPolicy } from "./admission/finish-options.js";
import type { WebhookTurns } from "@chorus/platform/webhooks";
import type { LimitPolicy } from "./admission/limit-policy.js";
import { SpeechAdmission } from "./admission/speech-admission.js";
import { StreamPlaces } from "./admission/stream-places.js";
import { TextAdmission } from "./admission/text-admission.js";
import { UsageBudgets } from "./admission/usage-budgets.js";
import { authenticate } from "./middleware/authenticate.js";
import { countedUsage } from "./middleware/count-usage.js";
import type { RequestCounts } from "./services/request-counts.js";
import { corsPolicy } from "./middleware/cors.js";
import { errorHandler } from "./middleware/error-handler.js";
import { methodNotAllowed } from "./middleware/method-not-allowed.js";
import { createRateLimiters } from "./middleware/rate-limit.js";
import { requestContext } from "./middleware/request-context.js";
import { addHealthRoutes } from "./routes/health.route.js";
import { addMetricsRoute } from "./routes/metrics.route.js";
import { addOpenAiRoutes } from "./openai/openai.routes.js";
import { addDocsRoutes } from "./openapi/docs.route.js";
import { addOpenApiRoute } from "./openapi/openapi.route.js";
import { addPlaygroundRoutes } from "./playground/playground.route.js";
import { addSpeechRoutes } from "./routes/speech.route.js";
import { addBatchStatusRoute } from "./routes/batch-status.route.js";
import { addRequestsListRoute } from "./routes/requests-list.route.js";
import { addUsageRoute } from "./routes/usage.route.js";
import { addStatusRoutes } from "./routes/status.route.js";
import { addReplyAudioRoutes } from "./routes/reply-audio.route.js";
import { addTextRoutes } from "./routes/text.route.js";
import type { SpeechJobs } from "./services/speech-jobs.service.js";
import type { IdempotencyKeys } from "./services/idempotency.js";
import type { QueueDepth } from "./services/queue-depth.js";
import type { FinalStatusWaits } from "./services/final-status-waits.js";
import type { OpenStreams } from "./services/open-streams.js";
import type { StatusChanges } from "./services/status-changes.js";
import type { ReplyDeltas } from "./services/reply-deltas.js";
import { RequestListing } from "./services/request-listing.js";
import type { TextJobs } from "./services/text-jobs.service.js";

export interface GatewayDeps {
  /** Per-request commands: API keys, rate limits, status reads, idempotency. */
  redis: RedisClient;
  /** BullMQ's connection (jobs and the status records created with them). */
  queueRedis: RedisClient;
  /** Speech audio's own connection (null without speech): its pieces never queue behind, or ahead of, a poll. */
  audioRedis: RedisClient | null;
  keys: RedisKeys;
  logger: Logger;
  apiKeys: ApiKeyStore;
  /** How requests find their key: the store, usually behind a short in-process cache. */
  keyLookup: ApiKeyLookup;
  /** When each key last authenticated, written at most once a minute per key from here. */
  keyLastUsed: KeyLastUsed;
  statuses: StatusStore;
  /** Requests waiting (`Prefer: wait`) for a record to turn final. */
  finalStatusWaits: FinalStatusWaits;
  /** Open status streams (SSE), told when their record changes. */
  statusChanges: StatusChanges;
  /** Streamed completions (/v1), handed their replies' growth as the workers publish it. */
  replyDeltas: ReplyDeltas;
  textJobs: TextJobs;
  idempotency: IdempotencyKeys;
  queueDepth: QueueDepth;
  /** Text backlog at which submits get 503 (null: no bound). */
  maxQueueDepth: number | null;
  /** What a /v1 text request may ask (MAX_COMPLETION_TOKENS). */
  chatLimits: ChatLimits;
  /** The streams and waits each key holds open, over all gateways. */
  openStreams: OpenStreams;
  /** How long delivered speech is kept for retries with the same Idempotency-Key. */
  audioKeepSeconds: number;
  /** Null where speech is switched off (the speech routes then answer 503). */
  speechJobs: SpeechJobs | null;
  /** Spoken replies of text requests that asked for `speak` (kept as long as their record). */
  replyAudio: SpeechAudioStore;
  /** The Files API's files (a batch's input), each its key's own. */
  files: FileStore;
  /** The Batch API's batches, each its key's own. */
  batches: BatchStore;
  /** Feeds batches' lines to the text queue and finishes batches (running while the gateway runs). */
  batchFeeder: BatchFeeder;
  /** A batch's completion window in seconds (24 h; shorter only in tests). */
  batchWindowSeconds: number;
  /** Whether a submit may carry `webhook`, and where it may point. */
  webhooks: WebhookPolicy;
  /** Each key's webhook turns and deliveries pending (the admin API shows them). */
  webhookTurns: WebhookTurns;
  /** Each key's limits (per-minute budgets, holding caps, usage budgets): its own, else the deployment's. */
  limits: LimitPolicy;
  /** What each key used and holds of its usage budgets per UTC day and month. */
  budgetLedger: UsageBudgetLedger;
  rateLimitWindowMs: number;
  authFailureLimit: number;
  trustProxy: boolean | number | string;
  metrics: GatewayMetrics;
  /** METRICS_TOKEN: when set, GET /metrics needs it as a Bearer token. */
  metricsToken: string | undefined;
  /** CORS_ORIGINS: browser origins allowed to call the API (`*` for any); empty: no CORS. */
  corsOrigins: string[];
  /** Per-key, per-day usage counters: requests here, tokens and speech in the workers. */
  usage: ApiKeyUsage;
  /** What keys' finished jobs used (metered by whoever finished them): GET /api/v2/usage, GET /admin/usage. */
  usageReader: UsageReader;
  /** The requests this gateway admitted, on their way to `usage`. */
  requestCounts: RequestCounts;
  /** ADMIN_TOKEN: when set, the admin API and the queues dashboard exist (under /admin). */
  adminToken: string | undefined;
  /** Every BullMQ queue the gateway feeds, for the queues dashboard. */
  queues: Queue[];
  /** INSTANCE_ID: answered in the probes' X-Chorus-Instance header (npm start checks it is its own gateway). */
  instanceId?: string | undefined;
}

/** Every Redis connection the gateway holds: start-up, /readyz and the 503 mapping check them all. */
export function redisConnections(deps: Pick<GatewayDeps, "redis" | "queueRedis" | "audioRedis">): RedisClient[] {
  return deps.audioRedis ? [deps.redis, deps.queueRedis, deps.audioRedis] : [deps.redis, deps.queueRedis];
}

/**
 * The whole HTTP surface; never listens (main.ts does), so tests drive it with supertest. One flat
 * route table, the API first (each layer a request passes costs µs; polls meet theirs after one);
 * then what needs no key (probes, /metrics, /openapi.json, /docs, the playground) and /admin; then
 * authentication, 405 or 404. CORS, when set, comes before them all (preflights need no key).
 */
export function buildApp(deps: GatewayDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("trust proxy", deps.trustProxy);
  app.use(requestContext(deps.logger, deps.metrics));
  const cors = corsPolicy(deps.corsOrigins);
  if (cors) app.use(cors);

  const limiters = createRateLimiters({
    redis: deps.redis,
    keys: deps.keys,
    logger: deps.logger,
    limits: deps.limits,
    windowMs: deps.rateLimitWindowMs,
    authFailureLimit: deps.authFailureLimit,
    metrics: deps.metrics,
  });
  const authenticated = authenticate(deps.keyLookup, limiters.authFailure, deps.keyLastUsed);
  const status = countedUsage(limiters.status, deps.requestCounts, "status");
  const tts = countedUsage(limiters.tts, deps.requestCounts, "tts");
  const text = (model: ModelId) => countedUsage(limiters.text(model), deps.requestCounts, "text");
  const budgets = (req: Request, res: Response) => requestBudgets({ text, tts }, req, res);
  const places = new StreamPlaces(deps.openStreams, deps.limits);
  const usageBudgets = new UsageBudgets({ ledger: deps.budgetLedger, limits: deps.limits, metrics: deps.metrics });
  addStatusRoutes(
    app,
    { statuses: deps.statuses, jobs: deps.textJobs, waits: deps.finalStatusWaits, changes: deps.statusChanges, places },
    { authenticate: authenticated, limit: status },
  );
  addBatchStatusRoute(app, deps.statuses, {
    authenticate: authenticated,
    limit: status,
    chargeIds: limiters.statusUnits,
  });
  addRequestsListRoute(app, new RequestListing(new RequestIndex(deps.redis, deps.keys), deps.statuses), {
    authenticate: authenticated,
    limit: status,
  });
  const textAdmission = new TextAdmission({
    limits: deps.limits,
    places,
    idempotency: deps.idempotency,
    queueDepth: deps.queueDepth,
    maxQueueDepth: deps.maxQueueDepth,
    jobs: deps.textJobs,
    webhooks: deps.webhooks,
    speechEnabled: deps.speechJobs !== null,
    modelFeatures: new ModelFeatures(deps.redis, deps.keys.modelFeatures()),
    usageBudgets,
  });
  const textDoor = { admission: textAdmission, budgets, statuses: deps.statuses, waits: deps.finalStatusWaits };
  addTextRoutes(app, textDoor, authenticated);
  const speechAdmission = new SpeechAdmission({
    speech: deps.speechJobs,
    idempotency: deps.idempotency,
    keepSeconds: deps.audioKeepSeconds,
    usageBudgets,
  });
  const speechDoor = { admission: speechAdmission, budgets };
  addSpeechRoutes(app, speechDoor, authenticated);
  addReplyAudioRoutes(
    app,
    { statuses: deps.statuses, audio: deps.replyAudio },
    { authenticate: authenticated, limit: tts },
  );
  const chat = {
    ...textDoor,
    jobs: deps.textJobs,
    changes: deps.statusChanges,
    deltas: deps.replyDeltas,
    limits: deps.chatLimits,
  };
  const openAi = {
    chat,
    responses: { ...chat, places },
    speech: speechDoor,
    files: deps.files,
    batches: {
      batches: deps.batches,
      files: deps.files,
      limits: deps.limits,
      chatLimits: deps.chatLimits,
      windowSeconds: deps.batchWindowSeconds,
      nudge: (id: string) => deps.batchFeeder.step(id),
    },
    connections: redisConnections(deps),
  };
  addOpenAiRoutes(app, openAi, { authenticate: authenticated, status });
  // After the paths every request takes (submits, polls): each route layer before them costs them a match.
  addUsageRoute(app, deps.usageReader, { authenticate: authenticated, limit: status });
  addHealthRoutes(app, redisConnections(deps), deps.instanceId);
  addMetricsRoute(app, deps.metrics, deps.metricsToken);
  addOpenApiRoute(app);
  addDocsRoutes(app);
  addPlaygroundRoutes(app);
  addAdminRoutes(app, deps, limiters.authFailure);
  // An unknown path tells a caller without a valid key nothing but 401.
  app.use(authenticated);
  app.use(methodNotAllowed(app));
  app.use((req, _res, next) => next(new ApiError("NOT_FOUND", `no endpoint ${req.method} ${req.path}`)));
  app.use(errorHandler(redisConnections(deps)));
  return app;
}
