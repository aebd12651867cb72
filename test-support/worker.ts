import { BatchLineCounter, BatchStore } from "@chorus/platform/batches";
import { SPEECH_LIMITS } from "@chorus/contracts";
import { UsageBudgetLedger } from "@chorus/platform/budgets";
import { createWorkerRedis, redisKeys, type RedisTarget } from "@chorus/platform/redis";
import { JobTimeStats, ModelFeatures, StatusStore } from "@chorus/platform/scheduler";
import { SpeechAudioStore } from "@chorus/platform/speech-audio";
import { UsageMeter } from "@chorus/platform/usage";
import type { Worker } from "bullmq";
import {
  findLlamaServer,
  type LlamaRuntime,
  type LlmEngine,
  loadCharacterCatalog,
  loadLlamaEngine,
  publishModelFeatures,
} from "@chorus/worker/llm";
import {
  createWorkers,
  listenForCancellations,
  ReplyLengthStats,
  type WorkerDeps,
  WorkerPresence,
} from "@chorus/worker";
import { FIXTURE_MODEL } from "./fixtures.js";

// The worker's parts that the gateway's and the SDK's tests wire in come through here: they never import
// the worker themselves (a lint rule keeps it so).
export type { GenerationInput, LlmEngine } from "@chorus/worker/llm";
export { loadCharacterCatalog, OpenAiCompatibleLlmEngine, STOP_SEQUENCES } from "@chorus/worker/llm";
export { EspeakSpeechEngine, synthesizeSpeechProcessor } from "@chorus/worker/speech";
import { testLogger } from "./logger.js";
import { TEST_REDIS } from "./redis.js";

export interface TestWorker {
  deps: WorkerDeps;
  workers: Worker[];
  close(): Promise<void>;
}

/** The llama-server the worker would run (`npm run llama:build` makes it; CI runs that), or null. */
export const LLAMA_SERVER_BINARY = process.env.LLAMA_SERVER_BIN ?? findLlamaServer(process.env.LLAMA_BUILD_CACHE);

/**
 * llama.cpp threads in tests: one. Two threads meet at a barrier every decode step, so on a busy
 * 2-core machine each step waits until both get a core: measured 30 tok/s with two threads against
 * 596 with one (stories260K, llama-server, 900 tokens, two other processes spinning). Tests check
 * behaviour, not speed; the bench measures threads.
 */
export const TEST_LLAMA_THREADS = 1;

/** The fixture model on a llama.cpp engine; `auto`, as the worker does by default: llama-server when built. */
export async function loadFixtureEngine(
  sequences = 2,
  contextSize = 1024,
  runtime: LlamaRuntime = "auto",
): Promise<LlmEngine> {
  const settings = {
    modelPath: FIXTURE_MODEL,
    threads: TEST_LLAMA_THREADS,
    sequences,
    contextSize,
    gpu: false as const,
  };
  return (
    await loadLlamaEngine({ ...settings, runtime, serverBinary: LLAMA_SERVER_BINARY, logger: testLogger("llama") })
  ).engine;
}

/** The llama.cpp runtimes to run a suite on: both, each skipped with its reason when it cannot run here. */
export const LLAMA_RUNTIMES = ["server", "in-process"] as const;

/** A describe per runtime; the server's says why it is skipped where llama-server was not built. */
export function describeEachLlamaRuntime(name: string, body: (runtime: (typeof LLAMA_RUNTIMES)[number]) => void): void {
  for (const runtime of LLAMA_RUNTIMES) {
    if (runtime === "server" && !LLAMA_SERVER_BINARY)
      describe.skip(`${name} [llama-server] [SKIPPED: no llama-server built; run npm run llama:build]`, () =>
        body(runtime));
    else describe(`${name} [${runtime}]`, () => body(runtime));
  }
}

/** The real worker (as main.ts builds it) in this process, on the shared fixture model. */
export async function startTestWorker(
  prefix: string,
  engine: LlmEngine,
  overrides: Partial<WorkerDeps> = {},
  redis: string | RedisTarget = TEST_REDIS,
): Promise<TestWorker> {
  const connection = createWorkerRedis(redis);
  connection.on("error", () => undefined); // as in production, an error event is not fatal (the worker waits for Redis)
  const keys = redisKeys(prefix);
  const characters = await loadCharacterCatalog();
  const meter = new UsageMeter(connection, keys, testLogger("usage"));
  const deps: WorkerDeps = {
    connection,
    keys,
    logger: testLogger("worker"),
    statuses: new StatusStore(
      connection,
      keys,
      3600,
      undefined,
      meter,
      new BatchLineCounter(new BatchStore(connection, keys), connection, keys, 3600),
    ),
    meter,
    modelFor: (model) => ({ engine, character: characters[model] }),
    replyLengths: new ReplyLengthStats(connection, keys.replyLengthStats()),
    jobTimes: new JobTimeStats(connection, keys.textJobStats()),
    concurrency: 2,
    lockDurationMs: 30_000,
    progressIntervalMs: 20,
    fallbackTokensPerSecond: 10,
    jobTimeLimitMs: 60_000,
    budgets: new UsageBudgetLedger(connection, keys),
    speech: null,
    // As in production (apps/worker/src/dependencies.ts), a worker with a speech engine also speaks
    // replies asked for with `speak`, storing them on its own connection.
    replySpeech: overrides.speech
      ? {
          speech: overrides.speech.speech,
          audio: new SpeechAudioStore(connection, keys),
          ttlSeconds: 3600,
          maxChars: SPEECH_LIMITS.textMaxChars,
        }
      : null,
    ...overrides,
  };
  // As dependencies.ts does: the gateway refuses at admission what the engine cannot honour.
  await publishModelFeatures(new ModelFeatures(connection, keys.modelFeatures()), deps.modelFor, deps.logger);
  const workers = createWorkers(deps);
  const subscriber = connection.duplicate();
  subscriber.on("error", () => undefined);
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
