import { CANCELLED_ERROR, QUEUES, type GenerateTextJob, type SynthesizeSpeechJob } from "@chorus/contracts";
import type { Logger, RedisKeys, StatusStore, RedisClient } from "@chorus/platform";
import { Worker } from "bullmq";
import { isFinalFailure } from "./processors/final-failure.js";
import { failureMessage } from "./records/failure-message.js";
import { retryFinalWrite } from "./records/retry-final-write.js";
import { generateTextProcessor, type GenerateTextDeps } from "./processors/generate-text.processor.js";
import { synthesizeSpeechProcessor, type SynthesizeSpeechDeps } from "./processors/synthesize-speech.processor.js";
import { createWebhookWorker, type WebhookWorkerDeps } from "./webhooks/webhook-worker.js";

export interface WorkerDeps extends GenerateTextDeps {
  connection: RedisClient;
  keys: RedisKeys;
  statuses: StatusStore;
  logger: Logger;
  concurrency: number;
  /** How long a job's lock lasts without renewal; a dead worker's job is taken over after it. */
  lockDurationMs: number;
  /** Null where this worker does no speech. */
  speech: (Omit<SynthesizeSpeechDeps, "connection" | "keys" | "logger" | "usage"> & { concurrency: number }) | null;
  /** Null or absent where this worker delivers no webhooks (no WEBHOOK_SECRET). */
  webhooks?: Pick<WebhookWorkerDeps, "sender" | "concurrency"> | null;
}

function createSpeechWorker(deps: WorkerDeps): Worker<SynthesizeSpeechJob> | null {
  if (!deps.speech) return null;
  const worker = new Worker<SynthesizeSpeechJob>(
    QUEUES.speech,
    synthesizeSpeechProcessor({
      ...deps.speech,
      connection: deps.connection,
      keys: deps.keys,
      logger: deps.logger,
      usage: deps.usage,
    }),
    {
      connection: deps.connection,
      prefix: deps.keys.bullPrefix(QUEUES.speech),
      concurrency: deps.speech.concurrency,
    },
  );
  worker.on("error", (error) => deps.logger.error("speech worker error", { error: error.message }));
  worker.on("failed", (job, error) =>
    deps.logger.warn("speech failed", { jobId: job?.id, attempt: job?.attemptsMade, error: error.message }),
  );
  return worker;
}

export function createWorkers(deps: WorkerDeps): Worker[] {
  const publishReplyDelta = (message: string) => deps.connection.publish(deps.keys.replyDeltaChannel(), message);
  const text = new Worker<GenerateTextJob>(QUEUES.text, generateTextProcessor({ publishReplyDelta, ...deps }), {
    connection: deps.connection,
    prefix: deps.keys.bullPrefix(QUEUES.text),
    concurrency: deps.concurrency,
    lockDuration: deps.lockDurationMs,
    // A job whose worker died is moved back to the queue when its lock lapses; allow it to
    // survive two such crashes before it is failed (and its record says so).
    stalledInterval: deps.lockDurationMs,
    maxStalledCount: 2,
  });
  text.on("error", (error) => deps.logger.error("text worker error", { error: error.message }));
  text.on("failed", (job, error) => {
    if (!job) return;
    const final = isFinalFailure(job, error);
    if (error.message === CANCELLED_ERROR)
      deps.logger.info("generation cancelled", { jobId: job.id, attempt: job.attemptsMade });
    else
      deps.logger.warn("generation failed", { jobId: job.id, attempt: job.attemptsMade, final, error: error.message });
    if (!final) return;
    const onRetry = (e: unknown, attempt: number) =>
      deps.logger.warn("could not record failure; retrying", { jobId: job.id, attempt, error: String(e) });
    retryFinalWrite(() => deps.statuses.fail(job.data.requestId, failureMessage(error.message)), { onRetry }).catch(
      (e: unknown) => {
        deps.logger.error("could not record failure; the lost-job sweep will", { jobId: job.id, error: String(e) });
      },
    );
  });
  const speech = createSpeechWorker(deps);
  const webhooks = deps.webhooks ? createWebhookWorker({ ...deps, ...deps.webhooks }) : null;
  return [text, speech, webhooks].filter((worker): worker is Worker => worker !== null);
}
