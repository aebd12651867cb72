import { ApiKeyStore, ApiKeyUsage, CachedApiKeys, KeyLastUsed } from "@chorus/platform/api-keys";
import { UsageBudgetLedger } from "@chorus/platform/budgets";
import { budgetDefaults } from "@chorus/platform/config";
import { type Logger } from "@chorus/platform/logger";
import { createMetrics, readQueueDepths } from "@chorus/platform/metrics";
import { createSpeechQueue, createTextQueue } from "@chorus/platform/queues";
import {
  createGatewayRedis,
  createWorkerRedis,
  redisKeys,
  redisTargetOf,
  type RedisKeys,
  type RedisTarget,
  type RedisClient,
} from "@chorus/platform/redis";
import { ModelFeatures, StatusStore } from "@chorus/platform/scheduler";
import { BatchLineCounter, BatchStore } from "@chorus/platform/batches";
import { SpeechAudioStore } from "@chorus/platform/speech-audio";
import { UsageMeter, UsageReader } from "@chorus/platform/usage";
import { createWebhookQueue, WebhookOutbox, WebhookTurns } from "@chorus/platform/webhooks";
import { FILE_LIMITS, QUEUES } from "@chorus/contracts";
import { RedisFileStore } from "@chorus/platform/files";
import { QueueEvents } from "bullmq";
import { setTimeout as delay } from "node:timers/promises";
import { LimitPolicy } from "./admission/limit-policy.js";
import { UsageBudgets } from "./admission/usage-budgets.js";
import { BatchFeeder } from "./batches/batch-feeder.js";
import { ChannelSubscriber } from "./services/channel-subscriber.js";
import { parseCorsOrigins } from "./middleware/cors.js";
import { RequestCounts } from "./services/request-counts.js";

import { FinalStatusWaits } from "./services/final-status-waits.js";
import { OpenStreams } from "./services/open-streams.js";
import { StatusChanges } from "./services/status-changes.js";
import { ReplyDeltas } from "./services/reply-deltas.js";
import { IdempotencyKeys } from "./services/idempotency.js";
import { QueueDepth } from "./services/queue-depth.js";
import { SpeechJobs } from "./services/speech-jobs.service.js";
import { SpeechStreamReaders } from "./services/speech-stream-readers.js";
import type { GatewayDeps } from "./app.js";
import type { GatewayConfig } from "./config.js";
import { ReplicaWait } from "./services/replica-wait.js";
import { TextJobs } from "./services/text-jobs.service.js";

/** How often a gateway adds the requests it admitted to the keys' usage counters. */
const USAGE_FLUSH_MS = 1000;

/** Longest wait for one 1 MiB piece of audio from Redis. */
const AUDIO_PIECE_TIMEOUT_MS = 10_000;

function parseTrustProxy(value: string): boolean | number | string {
  if (value === "true" || value === "false") return value === "true";
  return /^\d+$/.test(value) ? Number(value) : value;
}

/** Builds what the app needs from configuration; `close()` releases it all. */
export function createGatewayDeps(config: GatewayConfig, logger: Logger): GatewayDeps & { close(): Promise<void> } {
  // Two connections. BullMQ defines some forty Lua scripts on the client it is given, and ioredis
  // copies every defined script onto each auto-pipeline batch it builds: measurable per request
  // (npm run bench). So the per-request commands (keys, limits, status reads) get a lean connection
  // with auto-pipelining, and BullMQ's connection writes each command as it comes.
  const target = redisTargetOf(config);
  const redis = createGatewayRedis(target);
  redis.on("error", (error: Error) => logger.warn("redis connection error", { error: error.message }));
  const queueRedis = createGatewayRedis(target, { enableAutoPipelining: false });
  queueRedis.on("error", (error: Error) => logger.warn("redis queue connection error", { error: error.message }));
  const keys = redisKeys(config.REDIS_PREFIX);
  const statuses = new StatusStore(redis, keys, config.STATUS_TTL_SECONDS);
  // Subscribers of their own (a subscribed connection runs no other command); each waits for Redis
  // and subscribes again after a reconnect, as ioredis does by default.
  const finalStatusWaits = new FinalStatusWaits(createSubscriber(target, logger), keys.statusFinalChannel());
  const statusChanges = new StatusChanges(createSubscriber(target, logger), keys.statusChangedChannel());
  const replyDeltas = new ReplyDeltas(createSubscriber(target, logger), keys.replyDeltaChannel());
  const apiKeys = new ApiKeyStore(redis, keys);
  const webhookQueue = createWebhookQueue(queueRedis, keys);
  webhookQueue.on("error", (error: Error) => logger.warn("webhook queue error", { error: error.message }));
  // A cancel turns the record final here, so the gateway queues that record's webhook itself.
  // On the queue's connection: its scripts stay off the auto-pipelined one every request uses.
  const webhookTurns = new WebhookTurns(queueRedis, keys, config.STATUS_TTL_SECONDS * 1000);
  const webhookOutbox = new WebhookOutbox(
    webhookQueue,
    webhookTurns,
    { attempts: config.WEBHOOK_ATTEMPTS, backoffMs: config.WEBHOOK_BACKOFF_MS },
    logger,
  );
  // On the queue's connection, keeping its scripts off the lean one: only keys with budgets use it per request.
  const budgetLedger = new UsageBudgetLedger(queueRedis, keys);
  const textQueue = createTextQueue(queueRedis, keys);
  textQueue.on("error", (error: Error) => logger.warn("text queue error", { error: error.message }));
  const batches = new BatchStore(queueRedis, keys);
  // Batch lines do not count in the back-pressure that refuses interactive submits.
  const queueDepth = new QueueDepth(textQueue, undefined, () => batches.fedTotal());
  queueDepth.start();
  const speech = config.TTS_ENABLED ? createSpeechDeps(config, target, queueRedis, keys, logger, budgetLedger) : null;
  const queues = speech ? [textQueue, speech.queue] : [textQueue];
  const metrics = createMetrics("gateway", { queueDepth: readQueueDepths(queues) });
  const usage = new ApiKeyUsage(redis, keys);
  // A cancel turns the record final here, so the gateway meters it: on the queue's connection, as webhooks' scripts.
  const meter = new UsageMeter(queueRedis, keys, logger);
  const requestCounts = new RequestCounts(usage, USAGE_FLUSH_MS, logger);
  // A cancel turns batch lines final here: they count in their batch as a worker's ends do.
  const batchLines = new BatchLineCounter(batches, queueRedis, keys, config.STATUS_TTL_SECONDS);
  // The record is written (and confirmed) before its job is added, so it may go down the lean,
  // auto-pipelined connection; the job's replicas confirm the record's too (one replication stream).
  const textJobs = new TextJobs(
    new StatusStore(redis, keys, config.STATUS_TTL_SECONDS, webhookOutbox, meter, batchLines),
    textQueue,
    redis,
    keys,
    new ReplicaWait(queueRedis, config.REDIS_WAIT_REPLICAS, config.REDIS_WAIT_TIMEOUT_MS),
    queueRedis,
    budgetLedger,
  );
  const limits = new LimitPolicy(
    {
      text: config.RATE_LIMIT_TEXT,
      tts: config.RATE_LIMIT_TTS,
      status: config.RATE_LIMIT_STATUS,
      inflight: config.MAX_IN_FLIGHT_PER_KEY,
      streams: config.MAX_STREAMS_PER_KEY,
      webhooks: config.MAX_PENDING_WEBHOOKS_PER_KEY,
      batches: config.MAX_BATCHES_PER_KEY,
    },
    budgetDefaults(config),
  );
  const files = new RedisFileStore(speech?.audioRedis ?? queueRedis, keys, FILE_LIMITS.maxFilesPerKey);
  const batchFeeder = new BatchFeeder({
    batches,
    files,
    statuses,
    jobs: textJobs,
    apiKeys,
    usageBudgets: new UsageBudgets({ ledger: budgetLedger, limits, metrics }),
    modelFeatures: new ModelFeatures(redis, keys.modelFeatures()),
    chatLimits: { maxCompletionTokens: config.MAX_COMPLETION_TOKENS },
    window: config.BATCH_WINDOW,
    logger,
    redisReady: () => queueRedis.status === "ready",
  });
  batchFeeder.start();
  // A line's end tells the feeders at once (they also look at every batch once a second).
  const batchNudges = new ChannelSubscriber(
    createSubscriber(target, logger),
    keys.batchFeedChannel(),
    (id) => void batchFeeder.step(id),
  );
  void batchNudges.subscribed();
  const openStreams = new OpenStreams(redis, keys, { perGateway: config.MAX_STREAMS_PER_GATEWAY }, logger);
  return {
    redis,
    queueRedis,
    audioRedis: speech?.audioRedis ?? null,
    keys,
    logger,
    apiKeys,
    keyLookup: new CachedApiKeys(apiKeys, config.KEY_CACHE_TTL_MS),
    keyLastUsed: new KeyLastUsed(redis, keys),
    statuses,
    finalStatusWaits,
    statusChanges,
    replyDeltas,
    textJobs,
    batches,
    batchFeeder,
    budgetLedger,
    idempotency: new IdempotencyKeys(redis, keys, config.IDEMPOTENCY_TTL_SECONDS),
    queueDepth,
    maxQueueDepth: config.MAX_QUEUE_DEPTH > 0 ? config.MAX_QUEUE_DEPTH : null,
    chatLimits: { maxCompletionTokens: config.MAX_COMPLETION_TOKENS },
    openStreams,
    audioKeepSeconds: config.AUDIO_TTL_SECONDS,
    speechJobs: speech?.jobs ?? null,
    // Spoken replies are read like speech audio, on its connection where there is one.
    replyAudio: new SpeechAudioStore(speech?.audioRedis ?? queueRedis, keys),
    // Files of up to 16 MiB go on the bulky payloads' connection too, never in front of a poll.
    files,
    batchWindowSeconds: config.BATCH_WINDOW_SECONDS_FOR_TESTS,
    webhooks: {
      deploymentSecret: config.WEBHOOK_SECRET !== undefined,
      allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
      pending: (keyId) => webhookTurns.pending(keyId),
    },
    webhookTurns,
    limits,
    rateLimitWindowMs: config.RATE_LIMIT_WINDOW_MS,
    authFailureLimit: config.AUTH_FAILURE_LIMIT,
    trustProxy: parseTrustProxy(config.TRUST_PROXY),
    metrics,
    metricsToken: config.METRICS_TOKEN,
    instanceId: config.INSTANCE_ID,
    corsOrigins: parseCorsOrigins(config.CORS_ORIGINS),
    // Read by the admin API; requests are added to it by requestCounts, about once a second.
    usage,
    usageReader: new UsageReader(redis, keys),
    requestCounts,
    adminToken: config.ADMIN_TOKEN,
    queues: [...queues, webhookQueue],
    close: async () => {
      queueDepth.stop();
      batchFeeder.stop();
      batchNudges.close();
      openStreams.close();
      await requestCounts.close();
      finalStatusWaits.close();
      statusChanges.close();
      replyDeltas.close();
      await speech?.close();
      await textQueue.close();
      await webhookQueue.close();
      redis.disconnect();
      queueRedis.disconnect();
    },
  };
}

function createSubscriber(target: RedisTarget, logger: Logger): RedisClient {
  const subscriber = createWorkerRedis(target);
  subscriber.on("error", (error: Error) => logger.warn("redis subscriber connection error", { error: error.message }));
  return subscriber;
}

/** Speech waits for its result: QueueEvents reads job completions on its own blocking connection. */
function createSpeechDeps(
  config: GatewayConfig,
  target: RedisTarget,
  queueRedis: RedisClient,
  keys: RedisKeys,
  logger: Logger,
  budgetLedger: UsageBudgetLedger,
) {
  const queue = createSpeechQueue(queueRedis, keys);
  queue.on("error", (error: Error) => logger.warn("speech queue error", { error: error.message }));
  // BullMQ duplicates a connection it is handed for blocking reads; this one is ours to close.
  const eventsConnection = createWorkerRedis(target);
  eventsConnection.on("error", () => undefined); // reported through `events` below
  const events = new QueueEvents(QUEUES.speech, {
    connection: eventsConnection,
    prefix: keys.bullPrefix(QUEUES.speech),
  });
  events.on("error", (error: Error) => logger.warn("speech queue events error", { error: error.message }));
  // Audio (up to ~40 MB) travels on a connection of its own, a piece per command, with a timeout for
  // a piece rather than the request connection's 1.5 s: neither a poll nor an audio piece waits
  // behind the other, and a slow read fails alone.
  const audioRedis = createGatewayRedis(target, {
    enableAutoPipelining: false,
    commandTimeout: AUDIO_PIECE_TIMEOUT_MS,
  });
  audioRedis.on("error", (error: Error) => logger.warn("redis audio connection error", { error: error.message }));
  return {
    queue,
    audioRedis,
    jobs: new SpeechJobs(
      queue,
      events,
      new SpeechAudioStore(audioRedis, keys),
      new SpeechStreamReaders(audioRedis, keys),
      config.TTS_TIMEOUT_MS,
      budgetLedger,
    ),
    close: async () => {
      // Closing waits for the blocking read to return; after a Redis outage that can take long,
      // so it is bounded and the connection is then cut.
      await Promise.race([events.close(), delay(2000, undefined, { ref: false })]);
      await queue.close();
      eventsConnection.disconnect();
      audioRedis.disconnect();
    },
  };
}
