import type { DeliverWebhookJob } from "@chorus/contracts";
import type { Logger } from "@chorus/platform/logger";
import type { StatusStore } from "@chorus/platform/scheduler";
import { UnrecoverableError, type Job } from "bullmq";
import { ADDRESS_REFUSED } from "./checked-lookup.js";
import type { WebhookSender } from "./webhook-sender.js";

export interface DeliverWebhookDeps {
  statuses: StatusStore;
  sender: WebhookSender;
  logger: Logger;
}

/** How a delivery ended, or how one attempt failed (a label of webhook_deliveries_total). */
export type WebhookOutcome = "delivered" | "expired" | "retried" | "gone" | "refused" | "failed";

/** Prefixes of the failures that end a delivery at once; workers and metrics read them back. */
export const GONE = "gone:";
export const REFUSED = "refused:";

function isRefused(error: unknown): boolean {
  for (let e = error; e instanceof Error; e = e.cause)
    if ((e as { code?: unknown }).code === ADDRESS_REFUSED) return true;
  return false;
}

/** Standard Webhooks' message id: stable for the request, so a receiver can drop a repeat. */
export function webhookMessageId(requestId: string): string {
  return `msg_${requestId}`;
}

/**
 * One attempt to POST the final record (`{id, ...record}`, as a `Prefer: wait` answer has it).
 * A 2xx ends the delivery; 410 Gone and a refused address end it at once (UnrecoverableError);
 * anything else is thrown for BullMQ to retry with backoff.
 */
export function deliverWebhookProcessor(deps: DeliverWebhookDeps) {
  return async (job: Job<DeliverWebhookJob>): Promise<{ outcome: WebhookOutcome; status?: number }> => {
    const { requestId, url } = job.data;
    if (!requestId || typeof url !== "string") throw new UnrecoverableError("malformed job payload");
    const log = deps.logger.child({ jobId: requestId, attempt: job.attemptsMade + 1 });
    const stored = await deps.statuses.get(requestId);
    if (!stored || stored.record.status === "processing") {
      log.warn("webhook not sent: the record has expired");
      return { outcome: "expired" };
    }
    const started = Date.now();
    let status: number;
    try {
      ({ status } = await deps.sender.send(
        url,
        webhookMessageId(requestId),
        JSON.stringify({ id: requestId, ...stored.record }),
      ));
    } catch (error) {
      if (isRefused(error)) throw new UnrecoverableError(`${REFUSED} ${(error as Error).message}`);
      throw error;
    }
    log.info("webhook attempt answered", { status, ms: Date.now() - started });
    if (status >= 200 && status < 300) return { outcome: "delivered", status };
    if (status === 410) throw new UnrecoverableError(`${GONE} the receiver answered 410 Gone`);
    throw new Error(`the receiver answered ${status}`);
  };
}

/** How a failed attempt counts: retried, or the reason the delivery ended. */
export function failedWebhookOutcome(error: Error, final: boolean): WebhookOutcome {
  if (error.message.startsWith(GONE)) return "gone";
  if (error.message.startsWith(REFUSED)) return "refused";
  return final ? "failed" : "retried";
}
