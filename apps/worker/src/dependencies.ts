import { BatchLineCounter, BatchStore } from "@chorus/platform/batches";
import { SPEECH_LIMITS } from "@chorus/contracts";
import { WebhookSecrets } from "@chorus/platform/api-keys";
import { UsageBudgetLedger } from "@chorus/platform/budgets";
import { type Logger } from "@chorus/platform/logger";
import { createWorkerRedis, redisKeys, redisTargetOf, type RedisClient, type RedisKeys } from "@chorus/platform/redis";
import { JobTimeStats, ModelFeatures, StatusStore } from "@chorus/platform/scheduler";
import { SpeechAudioStore } from "@chorus/platform/speech-audio";
import { UsageMeter } from "@chorus/platform/usage";
import { createWebhookQueue, WebhookBreakers, WebhookOutbox, WebhookTurns } from "@chorus/platform/webhooks";
import { findLlamaServer } from "./engines/llm/llama-server.build.js";
import { loadCharacterCatalog } from "./characters/character-catalog.js";
import { spokenReplyTtlSeconds, type WorkerConfig } from "./config.js";
import { loadModelsConfigFile, modelsConfigFromEnv } from "./models/load-models-config.js";
import { createModelRegistry } from "./models/model-registry.js";
import { publishModelFeatures } from "./models/publish-model-features.js";
import { ReplyLengthStats } from "./progress/reply-length-stats.js";
import { speechEngineConfig } from "./engines/tts/speech-engine.config.js";
import { createSpeechEngine } from "./engines/tts/speech-engine.factory.js";
import type { WorkerDeps } from "./worker.js";
import { WebhookSender } from "./webhooks/webhook-sender.js";

/** What the webhook worker needs: every key signs with its own secret, those from before with WEBHOOK_SECRET. */
function webhookDelivery(config: WorkerConfig, connection: RedisClient, keys: RedisKeys, turns: WebhookTurns) {
  const secrets = new WebhookSecrets(connection, keys);
  const dnsServers = config.WEBHOOK_DNS_SERVERS?.split(",");
  return {
    sender: new WebhookSender({
      allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      dns: { timeoutMs: config.WEBHOOK_DNS_TIMEOUT_MS, ...(dnsServers && { servers: dnsServers }) },
    }),
    signingSecrets: (keyId: string) => secrets.signingSecrets(keyId, config.WEBHOOK_SECRET),
    turns,
    breakers: new WebhookBreakers(connection, keys, {
      failures: config.WEBHOOK_BREAKER_FAILURES,
      pauseMs: config.WEBHOOK_BREAKER_PAUSE_MS,
      trialLeaseMs: config.WEBHOOK_TIMEOUT_MS + config.WEBHOOK_DNS_TIMEOUT_MS,
    }),
    concurrency: config.WEBHOOK_CONCURRENCY,
  };
}

/** Loads the engines (downloading a model if needed), then builds what the workers need. */
export async function createWorkerDeps(
  config: WorkerConfig,
  logger: Logger,
): Promise<WorkerDeps & { close(): Promise<void> }> {
  const modelsConfig = config.MODELS_CONFIG
    ? await loadModelsConfigFile(config.MODELS_CONFIG)
    : modelsConfigFromEnv(config);
  const registry = await createModelRegistry(modelsConfig, await loadCharacterCatalog(), {
    threads: config.LLM_THREADS,
    sequences: config.WORKER_CONCURRENCY,
    contextSize: config.LLM_CONTEXT_SIZE,
    promptCacheMiB: config.LLM_CACHE_RAM_MB,
    gpu: config.LLM_GPU === "auto" ? "auto" : false,
    llamaRuntime: config.LLAMA_RUNTIME,
    llamaServerBinary: config.LLAMA_SERVER_BIN ?? findLlamaServer(config.LLAMA_BUILD_CACHE),
    modelsDir: config.MODELS_DIR,
    env: process.env,
    logger,
  });
  const connection = createWorkerRedis(redisTargetOf(config));
  connection.on("error", (error: Error) => logger.warn("redis connection error", { error: error.message }));
  const keys = redisKeys(config.REDIS_PREFIX);
  const speechConfig = speechEngineConfig(config, process.env);
  const speech = speechConfig ? createSpeechEngine(speechConfig) : null;
  if (speech) logger.info("speech engine ready", { engine: speech.name, concurrency: config.TTS_CONCURRENCY });
  // Records this worker finishes (replies, failures, lost jobs) queue their own webhook.
  const webhookQueue = createWebhookQueue(connection, keys);
  webhookQueue.on("error", (error: Error) => logger.warn("webhook queue error", { error: error.message }));
  const webhookTurns = new WebhookTurns(connection, keys, config.STATUS_TTL_SECONDS * 1000);
  const webhookOutbox = new WebhookOutbox(
    webhookQueue,
    webhookTurns,
    { attempts: config.WEBHOOK_ATTEMPTS, backoffMs: config.WEBHOOK_BACKOFF_MS },
    logger,
  );
  const replyLengths = new ReplyLengthStats(connection, keys.replyLengthStats());
  await replyLengths.load();
  await publishModelFeatures(new ModelFeatures(connection, keys.modelFeatures()), registry.modelFor, logger);
  const meter = new UsageMeter(connection, keys, logger);
  const batchLines = new BatchLineCounter(
    new BatchStore(connection, keys),
    connection,
    keys,
    config.STATUS_TTL_SECONDS,
  );
  return {
    connection,
    keys,
    logger,
    // Batch lines this worker finishes (replies, failures, queue deadlines, lost jobs) count in their batch.
    statuses: new StatusStore(connection, keys, config.STATUS_TTL_SECONDS, webhookOutbox, meter, batchLines),
    meter,
    modelFor: registry.modelFor,
    replyLengths,
    jobTimes: new JobTimeStats(connection, keys.textJobStats()),
    concurrency: config.WORKER_CONCURRENCY,
    lockDurationMs: config.JOB_LOCK_MS,
    progressIntervalMs: config.PROGRESS_INTERVAL_MS,
    fallbackTokensPerSecond: 10,
    jobTimeLimitMs: config.JOB_TIME_LIMIT_MS,
    budgets: new UsageBudgetLedger(connection, keys),
    speech: speech ? { speech, concurrency: config.TTS_CONCURRENCY, audioTtlSeconds: config.AUDIO_TTL_SECONDS } : null,
    replySpeech: {
      speech,
      audio: new SpeechAudioStore(connection, keys),
      ttlSeconds: spokenReplyTtlSeconds(config),
      maxChars: SPEECH_LIMITS.textMaxChars,
    },
    webhooks: webhookDelivery(config, connection, keys, webhookTurns),
    close: async () => {
      await webhookQueue.close();
      await speech?.close();
      await registry.close();
      connection.disconnect();
    },
  };
}
