import { QUEUES, type DeliverWebhookJob } from "@chorus/contracts";
import type { RedisKeys, RedisClient } from "@chorus/platform/redis";
import { Worker, type Job } from "bullmq";
import { isFinalFailure } from "../processors/final-failure.js";
import { deliverWebhookProcessor, type DeliverWebhookDeps, type DeliveryResult } from "./deliver-webhook.processor.js";
import { failedWebhookOutcome } from "./webhook-outcomes.js";

export interface WebhookWorkerDeps extends DeliverWebhookDeps {
  connection: RedisClient;
  keys: RedisKeys;
  /** Deliveries at once: they wait on the network, not the CPU. */
  concurrency: number;
}

/**
 * Consumes the delivery queue; every attempt and the final outcome of each delivery is logged, and a
 * delivery that ended (either way) no longer counts among its key's pending ones.
 */
export function createWebhookWorker(deps: WebhookWorkerDeps): Worker<DeliverWebhookJob> {
  const worker = new Worker<DeliverWebhookJob>(QUEUES.webhooks, deliverWebhookProcessor(deps), {
    connection: deps.connection,
    prefix: deps.keys.bullPrefix(QUEUES.webhooks),
    concurrency: deps.concurrency,
  });
  const ended = (job: Job<DeliverWebhookJob>) => {
    if (job.data.keyId) void deps.turns.ended(job.data.keyId, String(job.id)).catch(() => undefined);
  };
  worker.on("error", (error) => deps.logger.error("webhook worker error", { error: error.message }));
  worker.on("completed", (job, result: DeliveryResult) => {
    ended(job);
    deps.logger.info(result.outcome === "delivered" ? "webhook delivered" : "webhook not sent", {
      jobId: job.id,
      attempts: job.attemptsMade,
      ...result,
    });
  });
  worker.on("failed", (job, error) => {
    if (!job) return;
    const final = isFinalFailure(job, error);
    const outcome = failedWebhookOutcome(error, final);
    if (final) {
      ended(job);
      deps.logger.warn("webhook delivery given up", {
        jobId: job.id,
        attempts: job.attemptsMade,
        outcome,
        error: error.message,
      });
    } else
      deps.logger.info("webhook attempt failed; retrying", {
        jobId: job.id,
        attempt: job.attemptsMade,
        error: error.message,
      });
  });
  worker.on("closed", () => void deps.sender.close());
  return worker;
}
