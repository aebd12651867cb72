import { ADDRESS_REFUSED } from "./checked-lookup.js";

/** How a delivery ended, or how one attempt failed (a label of webhook_deliveries_total). */
export type WebhookOutcome =
  "delivered" | "expired" | "retried" | "paused" | "gone" | "refused" | "unsigned" | "failed";

/** Prefixes of the failures workers and metrics read back: the first three end a delivery at once. */
export const GONE = "gone:";
export const REFUSED = "refused:";
export const UNSIGNED = "unsigned:";
/** An attempt not made: the key's circuit breaker has paused the address (retried on the usual schedule). */
export const PAUSED = "paused:";

/** A circuit breaker change an attempt caused, for the metrics (worker-metrics.ts). */
export type BreakerChange = "paused" | "closed";

/** A failed attempt that paused its address: the error as thrown, with the change. */
export class WebhookAttemptFailed extends Error {
  constructor(
    cause: Error,
    readonly breaker: BreakerChange,
  ) {
    super(cause.message, { cause });
  }
}

export function isRefused(error: unknown): boolean {
  for (let e = error; e instanceof Error; e = e.cause)
    if ((e as { code?: unknown }).code === ADDRESS_REFUSED) return true;
  return false;
}

/** Standard Webhooks' message id: stable for the request, so a receiver can drop a repeat. */
export function webhookMessageId(requestId: string): string {
  return `msg_${requestId}`;
}

/** How a failed attempt counts: retried (or paused), or the reason the delivery ended. */
export function failedWebhookOutcome(error: Error, final: boolean): WebhookOutcome {
  for (const [prefix, outcome] of [
    [GONE, "gone"],
    [REFUSED, "refused"],
    [UNSIGNED, "unsigned"],
  ] as const)
    if (error.message.startsWith(prefix)) return outcome;
  if (final) return "failed";
  return error.message.startsWith(PAUSED) ? "paused" : "retried";
}
