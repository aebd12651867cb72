import type { RedisKeys } from "@chorus/platform/redis";
import { createWorkerRedis } from "@chorus/platform/redis";
import { StatusStore } from "@chorus/platform/scheduler";
import { TEST_REDIS } from "./redis.js";
import { startTestWorker, type LlmEngine, type TestWorker } from "./worker.js";

/** A real worker that notes the order in which its jobs really start. */
export interface StartOrderWorker {
  worker: TestWorker;
  /** Request ids, in the order their jobs started (each start once: a retried job would appear twice). */
  started: string[];
  /** Resolves at the first start. */
  firstStart: Promise<void>;
  close(): Promise<void>;
}

/**
 * The real worker with `concurrency` slots on `engine`, whose StatusStore notes every start (its
 * start mark) before writing it: what the fair-turn tests compare with the queue's order.
 */
export async function startStartOrderWorker(
  prefix: string,
  keys: RedisKeys,
  engine: LlmEngine,
  concurrency: number,
): Promise<StartOrderWorker> {
  const started: string[] = [];
  let onFirstStart!: () => void;
  const firstStart = new Promise<void>((resolve) => (onFirstStart = resolve));
  const connection = createWorkerRedis(TEST_REDIS);
  const statuses = new (class extends StatusStore {
    override async markStarted(requestId: string, now?: number) {
      started.push(requestId);
      onFirstStart();
      return super.markStarted(requestId, now);
    }
  })(connection, keys, 3600);
  const worker = await startTestWorker(prefix, engine, { concurrency, statuses });
  return {
    worker,
    started,
    firstStart,
    close: async () => {
      await worker.close();
      connection.disconnect();
    },
  };
}
