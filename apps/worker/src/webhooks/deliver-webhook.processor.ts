import type { DeliverWebhookJob } from "@chorus/contracts";
import type { Logger } from "@chorus/platform/logger";
import type { StatusStore } from "@chorus/platform/scheduler";
import type { WebhookBreakers, WebhookTurns } from "@chorus/platform/webhooks";
import { UnrecoverableError, type Job } from "bullmq";
import type { WebhookSender } from "./webhook-sender.js";
import {
  GONE,
  isRefused,
  PAUSED,
  REFUSED,
  UNSIGNED,
  WebhookAttemptFailed,
  webhookMessageId,
  type BreakerChange,
  type WebhookOutcome,
} from "./webhook-outcomes.js";

export interface DeliverWebhookDeps {
  statuses: StatusStore;
  sender: WebhookSender;
  /** What signs a delivery of this key now: its own secrets, or WEBHOOK_SECRET for an older key (none: unsigned). */
  signingSecrets(keyId: string): Promise<string[]>;
  turns: WebhookTurns;
  breakers: WebhookBreakers;
  logger: Logger;
}

export interface DeliveryResult {
  outcome: WebhookOutcome;
  status?: number;
  breaker?: BreakerChange;
}

const UNSIGNABLE = `${UNSIGNED} the key has no webhook signing secret of its own and no WEBHOOK_SECRET is set`;

/**
 * One attempt to POST the final record (`{id, keyId, ...record}`, signed with the key's secrets).
 * A 2xx ends the delivery; 410 Gone, a refused address or no secret to sign with end it at once
 * (UnrecoverableError); anything else is thrown for BullMQ to retry with backoff, behind the key's
 * deliveries already queued. An address the key's circuit breaker has paused is not tried: the
 * attempt fails at once.
 */
export function deliverWebhookProcessor(deps: DeliverWebhookDeps) {
  return async (job: Job<DeliverWebhookJob>): Promise<DeliveryResult> => {
    const { requestId, url } = job.data;
    if (!requestId || typeof url !== "string") throw new UnrecoverableError("malformed job payload");
    const log = deps.logger.child({ jobId: requestId, attempt: job.attemptsMade + 1 });
    await deps.turns.start(job.priority).catch(() => undefined);
    const stored = await deps.statuses.get(requestId);
    if (!stored || stored.record.status === "processing") {
      log.warn("webhook not sent: the record has expired");
      return { outcome: "expired" };
    }
    // The record's owner, not the job, names the key: jobs of an earlier release carry no keyId.
    const owner = stored.owner;
    const secrets = await deps.signingSecrets(owner);
    if (secrets.length === 0) throw new UnrecoverableError(UNSIGNABLE);
    const address = new URL(url).origin;
    const gate = await deps.breakers.admit(owner, address);
    if (gate.state === "paused")
      return retryLater(job, deps, new Error(`${PAUSED} ${address} failed too often; paused until ${iso(gate.until)}`));
    const started = Date.now();
    const body = JSON.stringify({ id: requestId, keyId: owner, ...stored.record });
    const answer = await deps.sender
      .send(url, webhookMessageId(requestId), body, secrets)
      .catch((error: Error) => error);
    if (answer instanceof Error && isRefused(answer)) throw new UnrecoverableError(`${REFUSED} ${answer.message}`);
    const status = answer instanceof Error ? null : answer.status;
    if (status !== null)
      log.info("webhook attempt answered", { status, ms: Date.now() - started, trial: gate.state === "trial" });
    const answered = status !== null && ((status >= 200 && status < 300) || status === 410);
    const breaker = (await deps.breakers.record(owner, address, answered).catch(() => null)) ?? undefined;
    if (breaker)
      log.warn(breaker === "paused" ? "webhook address paused" : "webhook address resumed", { address, keyId: owner });
    if (status !== null && status >= 200 && status < 300)
      return { outcome: "delivered", status, ...(breaker && { breaker }) };
    if (status === 410) throw new UnrecoverableError(`${GONE} the receiver answered 410 Gone`);
    const failure = answer instanceof Error ? answer : new Error(`the receiver answered ${status}`);
    return retryLater(job, deps, breaker === "paused" ? new WebhookAttemptFailed(failure, breaker) : failure);
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Fails the attempt for a retry, which first takes a new turn behind the key's queued deliveries. */
async function retryLater(job: Job<DeliverWebhookJob>, deps: DeliverWebhookDeps, failure: Error): Promise<never> {
  const keyId = job.data.keyId;
  const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
  if (keyId && !last) {
    const priority = await deps.turns.retryTurn(keyId).catch(() => null);
    if (priority !== null) await job.changePriority({ priority }).catch(() => undefined);
  }
  throw failure;
}
