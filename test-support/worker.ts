import { createWorkerRedis, redisKeys, StatusStore } from "@chorus/platform";
import type { Worker } from "bullmq";
import { loadCharacterCatalog } from "../apps/worker/src/characters/character-catalog.js";
import { LlamaLlmEngine } from "../apps/worker/src/engines/llm/llama.llm-engine.js";
import type { LlmEngine } from "../apps/worker/src/engines/llm/llm-engine.js";
import { listenForCancellations } from "../apps/worker/src/cancellation-listener.js";
import { JobTimeStats } from "../apps/worker/src/progress/job-time-stats.js";
import { WorkerPresence } from "../apps/worker/src/worker-presence.js";
import { ReplyLengthStats } from "../apps/worker/src/progress/reply-length-stats.js";
import { createWorkers, type WorkerDeps } from "../apps/worker/src/worker.js";
import { FIXTURE_MODEL } from "./fixtures.js";
import { testLogger } from "./logger.js";
import { TEST_REDIS_URL } from "./redis.js";

export interface TestWorker {
  deps: WorkerDeps;
  workers: Worker[];
  close(): Promise<void>;
}

export function loadFixtureEngine(sequences = 2, contextSize = 1024): Promise<LlamaLlmEngine> {
  return LlamaLlmEngine.load({ modelPath: FIXTURE_MODEL, threads: 2, sequences, contextSize, gpu: false });
}

/** The real worker (as main.ts builds it) in this process, on the shared fixture model. */
export async function startTestWorker(prefix: string, engine: LlmEngine, overrides: Partial<WorkerDeps> = {}, redisUrl = TEST_REDIS_URL): Promise<TestWorker> {
  const connection = createWorkerRedis(redisUrl);
  const keys = redisKeys(prefix);
  const characters = await loadCharacterCatalog();
  const deps: WorkerDeps = {
    connection,
    keys,
    logger: testLogger("worker"),
    statuses: new StatusStore(connection, keys, 3600),
    modelFor: (model) => ({ engine, character: characters[model] }),
    replyLengths: new ReplyLengthStats(connection, keys.replyLengthStats()),
    jobTimes: new JobTimeStats(connection, keys.textJobStats()),
    concurrency: 2,
    lockDurationMs: 30_000,
    progressIntervalMs: 20,
    fallbackTokensPerSecond: 10,
    jobTimeLimitMs: 60_000,
    speech: null,
    ...overrides,
  };
  const workers = createWorkers(deps);
  const subscriber = connection.duplicate();
  await listenForCancellations(subscriber, keys.cancelChannel(), workers, deps.logger);
  const presence = new WorkerPresence(connection, keys.workerSlots(), deps.concurrency);
  await presence.start();
  return {
    deps,
    workers,
    close: async () => {
      subscriber.disconnect();
      await presence.stop();
      await Promise.all(workers.map((w) => w.close()));
      connection.disconnect();
    },
  };
}
