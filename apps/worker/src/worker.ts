import {
  CANCELLED_ERROR,
  handoverQueueName,
  JOB_NAMES,
  QUEUES,
  speakReplyJobId,
  type GenerateTextJob,
  type SpeakReplyJob,
  type SynthesizeSpeechJob,
} from "@chorus/contracts";
import { createSpokenReplyQueue } from "@chorus/platform/queues";
import type { Logger } from "@chorus/platform/logger";
import type { RedisKeys, RedisClient } from "@chorus/platform/redis";
import type { StatusStore } from "@chorus/platform/scheduler";
import type { UsageMeter } from "@chorus/platform/usage";
import { UnrecoverableError, Worker, type Job } from "bullmq";
import { isFinalFailure } from "./processors/final-failure.js";
import { failureOf } from "./records/failure-message.js";
import { retryFinalWrite } from "./records/retry-final-write.js";
import { NOTHING_USED, settleJobBudget } from "./records/settle-budget.js";
import { generateTextProcessor, type GenerateTextDeps } from "./processors/generate-text.processor.js";
import { synthesizeSpeechProcessor, type SynthesizeSpeechDeps } from "./processors/synthesize-speech.processor.js";
import { spokenReplyProcessor } from "./processors/spoken-reply.processor.js";
import { createWebhookWorker, type WebhookWorkerDeps } from "./webhooks/webhook-worker.js";
import type { CacheRouting } from "./routing/cache-routing.js";
import { takeOverTiming } from "./take-over.js";

export interface WorkerDeps extends GenerateTextDeps {
  connection: RedisClient;
  /** Meters finished jobs into their key's usage: the status store's for text, the speech processor's own. */
  meter: UsageMeter;
  keys: RedisKeys;
  statuses: StatusStore;
  logger: Logger;
  concurrency: number;
  /** JOB_LOCK_MS: how long a job's lock lasts unrenewed; a dead worker's job runs again soon after (take-over.ts). */
  lockDurationMs: number;
  /** Null where this worker does no speech. */
  speech:
    | (Omit<SynthesizeSpeechDeps, "connection" | "keys" | "logger" | "meter" | "budgets"> & { concurrency: number })
    | null;
  /** Null or absent where this worker delivers no webhooks. */
  webhooks?: Omit<WebhookWorkerDeps, "connection" | "keys" | "statuses" | "logger"> | null;
  /** Cache-aware routing between workers; null or absent: every job runs where it is taken. */
  routing?: CacheRouting | null;
}

type SpeechQueueJob = SynthesizeSpeechJob | SpeakReplyJob;

/** The speech queue's two kinds of job: speech requests, and the replies text jobs hand over to speak (`speak`). */
function speechProcessor(deps: WorkerDeps, speech: NonNullable<WorkerDeps["speech"]>) {
  const { connection, keys, logger, meter, statuses, replySpeech, budgets } = deps;
  const synthesize = synthesizeSpeechProcessor({ ...speech, connection, keys, logger, meter, budgets });
  const speakReply = replySpeech ? spokenReplyProcessor({ replySpeech, statuses, budgets, logger }) : null;
  return (job: Job<SpeechQueueJob>, token?: string, signal?: AbortSignal) => {
    if (job.name !== JOB_NAMES.speakReply) return synthesize(job as Job<SynthesizeSpeechJob>, token, signal);
    if (!speakReply) throw new UnrecoverableError("this worker speaks no replies");
    return speakReply(job as Job<SpeakReplyJob>, token, signal);
  };
}

function createSpeechWorker(deps: WorkerDeps): Worker<SpeechQueueJob> | null {
  if (!deps.speech) return null;
  const worker = new Worker<SpeechQueueJob>(QUEUES.speech, speechProcessor(deps, deps.speech), {
    connection: deps.connection,
    prefix: deps.keys.bullPrefix(QUEUES.speech),
    concurrency: deps.speech.concurrency,
    ...takeOverTiming(deps.lockDurationMs),
  });
  worker.on("error", (error) => deps.logger.error("speech worker error", { error: error.message }));
  worker.on("failed", (job, error) => {
    deps.logger.warn("speech failed", { jobId: job?.id, attempt: job?.attemptsMade, error: error.message });
    // A speech job that will not run again used nothing a client got: its hold is given back.
    if (job && isFinalFailure(job, error)) void settleJobBudget(deps.budgets, job.data, NOTHING_USED, deps.logger);
  });
  return worker;
}

/**
 * Where a speech worker runs here, replies to speak go to the speech queue (a speech slot of any worker
 * that runs one), not spoken in the text slot; its queue closes with the speech worker.
 */
function handOffSpokenReplies(deps: WorkerDeps, speech: Worker | null): GenerateTextDeps["speakLater"] {
  if (!speech || !deps.replySpeech?.speech) return null;
  const queue = createSpokenReplyQueue(deps.connection, deps.keys);
  queue.on("error", (error) => deps.logger.warn("spoken-reply queue error", { error: error.message }));
  speech.on("closed", () => void queue.close());
  return async (job) => {
    await queue.add(JOB_NAMES.speakReply, job, { jobId: speakReplyJobId(job.requestId) });
  };
}

/** A job that will not be retried gets its failure written to its record. */
function recordFinalFailures(worker: Worker<GenerateTextJob>, deps: WorkerDeps): void {
  worker.on("error", (error) => deps.logger.error("text worker error", { error: error.message }));
  worker.on("failed", (job, error) => {
    if (!job) return;
    const final = isFinalFailure(job, error);
    if (error.message === CANCELLED_ERROR)
      deps.logger.info("generation cancelled", { jobId: job.id, attempt: job.attemptsMade });
    else
      deps.logger.warn("generation failed", { jobId: job.id, attempt: job.attemptsMade, final, error: error.message });
    if (!final) return;
    void settleJobBudget(deps.budgets, job.data, NOTHING_USED, deps.logger);
    const onRetry = (e: unknown, attempt: number) =>
      deps.logger.warn("could not record failure; retrying", { jobId: job.id, attempt, error: String(e) });
    const { error: message, code } = failureOf(error);
    retryFinalWrite(() => deps.statuses.fail(job.data.requestId, message, code), { onRetry }).catch((e: unknown) => {
      deps.logger.error("could not record failure; the lost-job sweep will", { jobId: job.id, error: String(e) });
    });
  });
}

/**
 * Hand-over jobs take slots the shared queue's Worker does not know of: it takes only what is left (at
 * least one, BullMQ's least, which then waits for a slot here).
 */
function narrowWhileHandoversRun(text: Worker<GenerateTextJob>, slots: number, routing: CacheRouting): void {
  routing.onHandovers = (count) => {
    text.concurrency = Math.max(1, slots - count);
  };
}

/** A hand-over copy's failure is the job's only when no retry can mend it; otherwise the shared copy retries it. */
function recordCopyFailures(worker: Worker<GenerateTextJob>, deps: WorkerDeps, routing: CacheRouting): void {
  worker.on("error", (error) => deps.logger.error("hand-over worker error", { error: error.message }));
  worker.on("failed", (job, error) => {
    if (!job) return;
    const final = error.message === CANCELLED_ERROR || error.name === "UnrecoverableError";
    deps.logger.warn("routed generation failed", { jobId: job.id, final, error: error.message });
    void routing.copyFailed(job.data.requestId, error, final).then((recordIt) => {
      if (!recordIt) return;
      void settleJobBudget(deps.budgets, job.data, NOTHING_USED, deps.logger);
      const { error: message, code } = failureOf(error);
      const write = () => deps.statuses.fail(job.data.requestId, message, code);
      retryFinalWrite(write, { onRetry: () => undefined }).catch((e: unknown) => {
        deps.logger.error("could not record failure; the lost-job sweep will", { jobId: job.id, error: String(e) });
      });
    });
  });
}

function createTextWorkers(deps: WorkerDeps, speakLater: GenerateTextDeps["speakLater"]): Worker<GenerateTextJob>[] {
  const publishReplyDelta = (message: string) => deps.connection.publish(deps.keys.replyDeltaChannel(), message);
  const { routing } = deps;
  const generate = generateTextProcessor({
    publishReplyDelta,
    ...deps,
    speakLater,
    // Only a worker that takes hand-overs says what it holds: others would hand it jobs it never takes.
    ...(routing?.handsOver ? { onReply: routing.onReply } : {}),
  });
  const options = (queue: string) => ({
    connection: deps.connection,
    prefix: deps.keys.bullPrefix(queue),
    concurrency: deps.concurrency,
    ...takeOverTiming(deps.lockDurationMs),
    // A job whose worker died is moved back to the queue when its lock lapses; allow it to
    // survive two such crashes before it is failed (and its record says so).
    maxStalledCount: 2,
  });
  const text = new Worker<GenerateTextJob>(
    QUEUES.text,
    routing ? routing.sharedProcessor(generate) : generate,
    options(QUEUES.text),
  );
  recordFinalFailures(text, deps);
  if (!routing?.handsOver) return [text];
  const handoverQueue = handoverQueueName(routing.workerId);
  const handover = new Worker<GenerateTextJob>(
    handoverQueue,
    routing.handoverProcessor(generate),
    options(handoverQueue),
  );
  recordCopyFailures(handover, deps, routing);
  narrowWhileHandoversRun(text, deps.concurrency, routing);
  return [text, handover];
}

export function createWorkers(deps: WorkerDeps): Worker[] {
  const speech = createSpeechWorker(deps);
  const text = createTextWorkers(deps, handOffSpokenReplies(deps, speech));
  const webhooks = deps.webhooks ? createWebhookWorker({ ...deps, ...deps.webhooks }) : null;
  return [...text, speech, webhooks].filter((worker): worker is Worker => worker !== null);
}
