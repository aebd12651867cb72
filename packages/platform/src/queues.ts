import { QUEUES, type GenerateTextJob } from "@chorus/contracts";
import { Queue, type DefaultJobOptions } from "bullmq";
import type { Redis } from "ioredis";
import type { RedisKeys } from "./redis/redis-keys.js";

/**
 * A job that fails for a reason that may pass (engine hiccup, lost worker) is retried with backoff;
 * processors throw UnrecoverableError for the rest. Finished jobs are trimmed: the status record,
 * not the job, is what clients read.
 */
export const TEXT_JOB_OPTIONS: DefaultJobOptions = {
  attempts: 3,
  backoff: { type: "exponential", delay: 1000 },
  removeOnComplete: { age: 3600, count: 1000 },
  removeOnFail: { age: 24 * 3600, count: 5000 },
};

export function createTextQueue(connection: Redis, keys: RedisKeys): Queue<GenerateTextJob> {
  return new Queue<GenerateTextJob>(QUEUES.text, {
    connection,
    prefix: keys.bullPrefix,
    defaultJobOptions: TEXT_JOB_OPTIONS,
  });
}
