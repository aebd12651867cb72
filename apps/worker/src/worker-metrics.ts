import { CANCELLED_ERROR, QUEUES } from "@chorus/contracts";
import type { JobOutcome, WorkerMetrics } from "@chorus/platform";
import type { Job, Worker } from "bullmq";
import { isFinalFailure } from "./worker.js";
import { failedWebhookOutcome, type WebhookOutcome } from "./webhooks/deliver-webhook.processor.js";

/** What a text job returns once the processor reports it (absent when it skipped a final record). */
interface GenerationResult {
  tokens: number;
  processingTime: number;
  model?: string;
}

/** What a speech job returns (SpeechJobResult): only the fields the metrics read. */
interface SpeechResult {
  format: string;
  durationSeconds: number | null;
}

function isGenerationResult(value: unknown): value is GenerationResult {
  const v = value as Partial<GenerationResult> | null;
  return typeof v === "object" && v !== null && typeof v.tokens === "number" && typeof v.processingTime === "number";
}

function isSpeechResult(value: unknown): value is SpeechResult {
  const v = value as Partial<SpeechResult> | null;
  return typeof v === "object" && v !== null && typeof v.format === "string";
}

/**
 * Failed attempts that will be retried are "retried", not "failed": a job with three attempts
 * would otherwise count as up to three failures. A cancellation is its own outcome, since it is
 * the client's choice, not a fault.
 */
function failureOutcome(job: Job | undefined, error: Error): JobOutcome {
  if (error.message === CANCELLED_ERROR) return "cancelled";
  return !job || isFinalFailure(job, error) ? "failed" : "retried";
}

function recordCompleted(metrics: Pick<WorkerMetrics, "recordGeneration" | "recordSpeech">, job: Job, result: unknown): void {
  if (isGenerationResult(result)) {
    // The model id is one of five validated ids: a bounded label either way.
    const model = typeof result.model === "string" ? result.model : String((job.data as { model?: unknown }).model);
    metrics.recordGeneration(model, result.tokens, result.processingTime);
  } else if (isSpeechResult(result)) {
    const { finishedOn, processedOn } = job;
    const seconds = typeof finishedOn === "number" && typeof processedOn === "number" ? (finishedOn - processedOn) / 1000 : null;
    metrics.recordSpeech(result.format, result.durationSeconds, seconds);
  }
}

/**
 * Counts jobs by outcome and records generation and speech figures from BullMQ's `completed` and
 * `failed` events, so the processors stay free of metrics code. Generation figures need the text
 * processor to return `{ tokens, processingTime, model }`; until it does, text jobs are only counted.
 */
export function instrumentWorkers(workers: readonly Worker[], metrics: Pick<WorkerMetrics, "recordJob" | "recordGeneration" | "recordSpeech" | "recordWebhook">): void {
  for (const worker of workers) {
    const webhooks = worker.name === QUEUES.webhooks;
    worker.on("completed", (job: Job, result: unknown) => {
      metrics.recordJob(worker.name, "completed");
      if (webhooks) metrics.recordWebhook((result as { outcome: WebhookOutcome }).outcome);
      else recordCompleted(metrics, job, result);
    });
    worker.on("failed", (job: Job | undefined, error: Error) => {
      metrics.recordJob(worker.name, failureOutcome(job, error));
      if (webhooks) metrics.recordWebhook(failedWebhookOutcome(error, !job || isFinalFailure(job, error)));
    });
  }
}
