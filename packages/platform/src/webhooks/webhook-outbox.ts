import { JOB_NAMES, QUEUES, type DeliverWebhookJob } from "@chorus/contracts";
import { Queue } from "bullmq";
import type { RedisClient } from "../redis/connection.js";
import type { Logger } from "../logger/logger.js";
import type { RedisKeys } from "../redis/redis-keys.js";
import type { FinalRecordHook } from "../scheduler/status-store.js";

export interface WebhookRetries {
  /** Attempts in all, the first included. */
  attempts: number;
  /** Delay before the second attempt; BullMQ doubles it for each next one. */
  backoffMs: number;
}

/** Deliveries are kept a day for inspection; the record, not the job, is what a client reads. */
export function createWebhookQueue(connection: RedisClient, keys: RedisKeys): Queue<DeliverWebhookJob> {
  return new Queue<DeliverWebhookJob>(QUEUES.webhooks, {
    connection,
    prefix: keys.bullPrefix(QUEUES.webhooks),
    defaultJobOptions: {
      removeOnComplete: { age: 24 * 3600, count: 1000 },
      removeOnFail: { age: 24 * 3600, count: 5000 },
    },
  });
}

/**
 * Queues the delivery of a record that has just turned final (a StatusStore's FinalRecordHook), from
 * whichever process wrote it: the worker (reply or failure), the gateway (cancel), the lost-job sweep.
 * The job id is the request id, so it is queued once. Never throws: the record is already final, and
 * a failed write there must not be retried for the hook's sake (it would find the record final).
 */
export class WebhookOutbox implements FinalRecordHook {
  constructor(
    private readonly queue: Queue<DeliverWebhookJob>,
    private readonly retries: WebhookRetries,
    private readonly logger: Logger,
  ) {}

  async finished(requestId: string, url: string): Promise<void> {
    const options = {
      jobId: requestId,
      attempts: this.retries.attempts,
      backoff: { type: "exponential", delay: this.retries.backoffMs },
    };
    try {
      await this.queue.add(JOB_NAMES.deliverWebhook, { requestId, url }, options);
      this.logger.info("webhook queued", { jobId: requestId });
    } catch (error) {
      this.logger.error("could not queue webhook delivery; it is lost", { jobId: requestId, error: String(error) });
    }
  }
}
