import { JOB_NAMES, QUEUES, type DeliverWebhookJob } from "@chorus/contracts";
import { Queue } from "bullmq";
import type { RedisClient } from "../redis/connection.js";
import type { Logger } from "../logger/logger.js";
import type { RedisKeys } from "../redis/redis-keys.js";
import type { FinalRecordHook, FinishedWithWebhook } from "../scheduler/status-store.js";
import type { WebhookTurns } from "./webhook-turns.js";

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
 * whichever process wrote it: the worker (reply or failure), the gateway (cancel), the lost-job sweep;
 * unless the request did not ask for that end (by default a client's own cancel is not delivered).
 * The job id is the request id, so it is queued once; its priority is its key's turn. Never throws:
 * the record is already final, and a failed write there must not be retried for the hook's sake.
 */
export class WebhookOutbox implements FinalRecordHook {
  constructor(
    private readonly queue: Queue<DeliverWebhookJob>,
    private readonly turns: WebhookTurns,
    private readonly retries: WebhookRetries,
    private readonly logger: Logger,
  ) {}

  async finished({ requestId, url, keyId, event, events }: FinishedWithWebhook): Promise<void> {
    if (!events.includes(event)) {
      this.logger.info("webhook not queued: the request did not ask for this end", { jobId: requestId, event });
      return;
    }
    let joined = false;
    try {
      const priority = await this.turns.join(keyId, requestId);
      joined = true;
      const options = {
        jobId: requestId,
        priority,
        attempts: this.retries.attempts,
        backoff: { type: "exponential", delay: this.retries.backoffMs },
      };
      await this.queue.add(JOB_NAMES.deliverWebhook, { requestId, url, keyId }, options);
      this.logger.info("webhook queued", { jobId: requestId, keyId, turn: priority });
    } catch (error) {
      this.logger.error("could not queue webhook delivery; it is lost", { jobId: requestId, error: String(error) });
      if (joined) await this.turns.ended(keyId, requestId).catch(() => undefined);
    }
  }
}
