import { createWorkerRedis, redisKeys, StatusStore, type Logger } from "@chorus/platform";
import { loadCharacterCatalog } from "./characters/character-catalog.js";
import { LlamaLlmEngine } from "./engines/llm/llama.llm-engine.js";
import { resolveModel } from "./engines/llm/model-resolver.js";
import type { WorkerConfig } from "./config.js";
import type { WorkerDeps } from "./worker.js";

/** Resolves (downloading if needed) and loads the model, then builds what the workers need. */
export async function createWorkerDeps(config: WorkerConfig, logger: Logger): Promise<WorkerDeps & { close(): Promise<void> }> {
  const modelPath = await resolveModel({ model: config.LLM_MODEL, directory: config.MODELS_DIR, showProgress: process.stderr.isTTY });
  const engine = await LlamaLlmEngine.load({
    modelPath,
    threads: config.LLM_THREADS,
    sequences: config.WORKER_CONCURRENCY,
    contextSize: config.LLM_CONTEXT_SIZE,
    gpu: config.LLM_GPU === "auto" ? "auto" : false,
  });
  logger.info("model loaded", { modelPath, threads: config.LLM_THREADS, sequences: config.WORKER_CONCURRENCY });
  const connection = createWorkerRedis(config.REDIS_URL);
  connection.on("error", (error: Error) => logger.warn("redis connection error", { error: error.message }));
  const keys = redisKeys(config.REDIS_PREFIX);
  return {
    connection,
    keys,
    logger,
    statuses: new StatusStore(connection, keys, config.STATUS_TTL_SECONDS),
    characters: await loadCharacterCatalog(),
    engineFor: () => engine,
    concurrency: config.WORKER_CONCURRENCY,
    lockDurationMs: config.JOB_LOCK_MS,
    progressIntervalMs: config.PROGRESS_INTERVAL_MS,
    fallbackTokensPerSecond: 10,
    jobTimeLimitMs: config.JOB_TIME_LIMIT_MS,
    close: async () => {
      await engine.close();
      connection.disconnect();
    },
  };
}
