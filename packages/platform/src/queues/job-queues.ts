import {
  handoverQueueName,
  QUEUES,
  type GenerateTextJob,
  type SpeakReplyJob,
  type SynthesizeSpeechJob,
} from "@chorus/contracts";
import { Queue, type DefaultJobOptions } from "bullmq";
import type { RedisClient } from "../redis/connection.js";
import type { RedisKeys } from "../redis/redis-keys.js";

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

export function createTextQueue(connection: RedisClient, keys: RedisKeys): Queue<GenerateTextJob> {
  return new Queue<GenerateTextJob>(QUEUES.text, {
    connection,
    prefix: keys.bullPrefix(QUEUES.text),
    defaultJobOptions: TEXT_JOB_OPTIONS,
  });
}

/**
 * One worker's hand-over queue (cache-aware routing): copies of text jobs routed to it. The
 * shared queue's job stays the one that counts, so a copy is dropped as soon as it ends.
 */
export function createHandoverQueue(
  connection: RedisClient,
  keys: RedisKeys,
  workerId: string,
): Queue<GenerateTextJob> {
  const name = handoverQueueName(workerId);
  return new Queue<GenerateTextJob>(name, {
    connection,
    prefix: keys.bullPrefix(name),
    defaultJobOptions: { ...TEXT_JOB_OPTIONS, removeOnComplete: true, removeOnFail: true },
  });
}

/** Someone is waiting on the line for speech: one quick retry, and short retention. */
export const SPEECH_JOB_OPTIONS: DefaultJobOptions = {
  attempts: 2,
  backoff: { type: "fixed", delay: 200 },
  removeOnComplete: { age: 300, count: 1000 },
  removeOnFail: { age: 3600, count: 1000 },
};

export function createSpeechQueue(connection: RedisClient, keys: RedisKeys): Queue<SynthesizeSpeechJob> {
  return new Queue<SynthesizeSpeechJob>(QUEUES.speech, {
    connection,
    prefix: keys.bullPrefix(QUEUES.speech),
    defaultJobOptions: SPEECH_JOB_OPTIONS,
  });
}

/**
 * Replies to speak (`speak`) on the speech queue: the reply is already generated, so they are retried
 * as text jobs are (an attempt that cannot write the record is worth another), and kept as long.
 */
export function createSpokenReplyQueue(connection: RedisClient, keys: RedisKeys): Queue<SpeakReplyJob> {
  return new Queue<SpeakReplyJob>(QUEUES.speech, {
    connection,
    prefix: keys.bullPrefix(QUEUES.speech),
    defaultJobOptions: TEXT_JOB_OPTIONS,
  });
}
