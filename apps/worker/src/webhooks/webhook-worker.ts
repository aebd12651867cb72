import { QUEUES, type DeliverWebhookJob } from "@chorus/contracts";
import type { Logger } from "@chorus/platform/logger";
import type { RedisKeys, RedisClient } from "@chorus/platform/redis";
import type { StatusStore } from "@chorus/platform/scheduler";
import { Worker } from "bullmq";
import { isFinalFailure } from "../processors/final-failure.js";
import { deliverWebhookProcessor, failedWebhookOutcome } from "./deliver-webhook.processor.js";
import type { WebhookSender } from "./webhook-sender.js";

export interface WebhookWorkerDeps {
  connection: RedisClient;
  keys: RedisKeys;
  statuses: StatusStore;
  logger: Logger;
  sender: WebhookSender;
  /** Deliveries at once: they wait on the network, not the CPU. */
  concurrency: number;
}

/** Consumes the delivery queue; every attempt and the final outcome of each delivery is logged. */
export function createWebhookWorker(deps: WebhookWorkerDeps): Worker<DeliverWebhookJob> {
  const worker = new Worker<DeliverWebhookJob>(QUEUES.webhooks, deliverWebhookProcessor(deps), {
    connection: deps.connection,
    prefix: deps.keys.bullPrefix(QUEUES.webhooks),
    concurrency: deps.concurrency,
  });
  worker.on("error", (error) => deps.logger.error("webhook worker error", { error: error.message }));
  worker.on("completed", (job, result: { outcome: string; status?: number }) => {
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
    if (final)
      deps.logger.warn("webhook delivery given up", {
        jobId: job.id,
        attempts: job.attemptsMade,
        outcome,
        error: error.message,
      });
    else
      deps.logger.info("webhook attempt failed; retrying", {
        jobId: job.id,
        attempt: job.attemptsMade,
        error: error.message,
      });
  });
  worker.on("closed", () => void deps.sender.close());
  return worker;
}
