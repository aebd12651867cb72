/** The ends of a request a webhook can be delivered for. */
export const WEBHOOK_EVENTS = ["completed", "error", "cancelled"] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/**
 * Without `webhookEvents`: a reply or a failure is delivered, the client's own cancel is not (it
 * knows of it already, and a delivery per cancel would cost nothing but the receiver's time).
 */
export const DEFAULT_WEBHOOK_EVENTS: readonly WebhookEvent[] = ["completed", "error"];

/** Which event a final record is: `cancelled` is an `error` record whose finishReason says so. */
export function webhookEventOf(record: { status: string; finishReason?: string }): WebhookEvent {
  if (record.status === "completed") return "completed";
  return record.finishReason === "cancelled" ? "cancelled" : "error";
}

/** The events as a status record stores them (comma-separated), and back; absent or empty: the default. */
export function storedWebhookEvents(events: readonly WebhookEvent[] | undefined): string {
  return (events ?? DEFAULT_WEBHOOK_EVENTS).join(",");
}

export function parseWebhookEvents(stored: string | undefined): WebhookEvent[] {
  if (!stored) return [...DEFAULT_WEBHOOK_EVENTS];
  return stored
    .split(",")
    .filter((event): event is WebhookEvent => (WEBHOOK_EVENTS as readonly string[]).includes(event));
}
