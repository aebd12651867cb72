import { CANCELLED_ERROR, QUEUES } from "@chorus/contracts";
import type { JobOutcome, WorkerMetrics } from "@chorus/platform/metrics";
import type { Job, Worker } from "bullmq";
import { isFinalFailure } from "./processors/final-failure.js";
import type { DeliveryResult } from "./webhooks/deliver-webhook.processor.js";
import { failedWebhookOutcome, WebhookAttemptFailed } from "./webhooks/webhook-outcomes.js";
import type { GenerationResult } from "./processors/generate-text.processor.js";
import type { RoutedCopy } from "./routing/cache-routing.js";

/**
 * What a text job returns (absent when it skipped a final record); a job stored by an older worker may lack the
 * prompt's figures.
 */
type StoredGenerationResult = Pick<GenerationResult, "tokens" | "processingTime"> & Partial<GenerationResult>;

/** What a speech job returns (SpeechJobResult): only the fields the metrics read. */
interface SpeechResult {
  format: string;
  durationSeconds: number | null;
}

function isGenerationResult(value: unknown): value is StoredGenerationResult {
  const v = value as Partial<StoredGenerationResult> | null;
  return typeof v === "object" && v !== null && typeof v.tokens === "number" && typeof v.processingTime === "number";
}

function isRoutedCopy(value: unknown): boolean {
  return typeof value === "object" && value !== null && (value as Partial<RoutedCopy>).routed === true;
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

function recordCompleted(
  metrics: Pick<WorkerMetrics, "recordGeneration" | "recordPromptCache" | "recordSpeech">,
  job: Job,
  result: unknown,
): void {
  if (isGenerationResult(result)) {
    // The model id is one of five validated ids: a bounded label either way.
    const model = typeof result.model === "string" ? result.model : String((job.data as { model?: unknown }).model);
    metrics.recordGeneration(model, result.tokens, result.processingTime);
    if (typeof result.promptTokens === "number" && typeof result.cachedTokens === "number")
      metrics.recordPromptCache(model, result.promptTokens, result.cachedTokens);
  } else if (isSpeechResult(result)) {
    const { finishedOn, processedOn } = job;
    const seconds =
      typeof finishedOn === "number" && typeof processedOn === "number" ? (finishedOn - processedOn) / 1000 : null;
    metrics.recordSpeech(result.format, result.durationSeconds, seconds);
  }
}

function recordDelivery(
  metrics: Pick<WorkerMetrics, "recordWebhook" | "recordWebhookBreaker">,
  result: DeliveryResult,
) {
  metrics.recordWebhook(result.outcome);
  if (result.breaker) metrics.recordWebhookBreaker(result.breaker);
}

/**
 * Counts jobs by outcome and records generation and speech figures from BullMQ's `completed` and
 * `failed` events, so the processors stay free of metrics code. Generation figures need the text
 * processor to return `{ tokens, processingTime, model }`; until it does, text jobs are only counted.
 */
export function instrumentWorkers(
  workers: readonly Worker[],
  metrics: Pick<
    WorkerMetrics,
    "recordJob" | "recordGeneration" | "recordPromptCache" | "recordSpeech" | "recordWebhook" | "recordWebhookBreaker"
  >,
): void {
  for (const worker of workers) {
    const webhooks = worker.name === QUEUES.webhooks;
    // A worker's hand-over queue holds text jobs: one label for them all, not one per worker id.
    const queue = worker.name.startsWith(`${QUEUES.text}@`) ? QUEUES.text : worker.name;
    worker.on("completed", (job: Job, result: unknown) => {
      // One copy of a routed job stepped aside for another (routing/cache-routing.ts): that one counts.
      if (isRoutedCopy(result)) return;
      metrics.recordJob(queue, "completed");
      if (webhooks) recordDelivery(metrics, result as DeliveryResult);
      else recordCompleted(metrics, job, result);
    });
    worker.on("failed", (job: Job | undefined, error: Error) => {
      // A hand-over copy has one attempt; a failure a retry may mend goes back to the shared copy (a retry).
      const outcome = failureOutcome(job, error);
      const routedRetry = queue !== worker.name && outcome === "failed" && error.name !== "UnrecoverableError";
      metrics.recordJob(queue, routedRetry ? "retried" : outcome);
      if (!webhooks) return;
      metrics.recordWebhook(failedWebhookOutcome(error, !job || isFinalFailure(job, error)));
      if (error instanceof WebhookAttemptFailed) metrics.recordWebhookBreaker(error.breaker);
    });
  }
}
