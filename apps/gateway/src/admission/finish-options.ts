import { ApiError, checkWebhookUrl, grants, hostAllowed, type GenerationRequest } from "@chorus/contracts";
import type { ApiKeyRecord } from "@chorus/platform/api-keys";

export interface WebhookPolicy {
  /** WEBHOOK_SECRET is set: it signs for keys made before keys had a secret of their own. */
  deploymentSecret: boolean;
  /** WEBHOOK_ALLOW_PRIVATE. */
  allowPrivate: boolean;
  /** A key's webhook deliveries queued and not yet ended (WebhookTurns.pending). */
  pending(keyId: string): Promise<number>;
}

const UNSIGNABLE =
  "webhook is not available to this API key: it has no webhook signing secret of its own (it was made before keys had one) and this deployment sets no WEBHOOK_SECRET. " +
  "Its operator gives it one with `npm run keys -- rotate-webhook-secret ID` (see docs/api.md, Webhooks)";

/** Seconds a key whose deliveries are backed up is asked to wait. */
const BACKED_UP_RETRY_SECONDS = 30;

function refuseWebhook(message: string): ApiError {
  return ApiError.invalidParameter("webhook", "string (an http or https URL)", message);
}

/** `webhook` and `webhookEvents`: signable, well formed, an allowed address, one of the key's hosts. */
function checkWebhook(key: ApiKeyRecord, request: GenerationRequest, webhooks: WebhookPolicy): void {
  if (request.webhook === undefined) {
    if (request.webhookEvents !== undefined)
      throw ApiError.invalidParameter("webhookEvents", "none", "webhookEvents is only meaningful with webhook");
    return;
  }
  if (!key.ownWebhookSecret && !webhooks.deploymentSecret)
    throw ApiError.invalidParameter("webhook", "none", UNSIGNABLE);
  checkWebhookUrl(request.webhook, webhooks.allowPrivate);
  const host = new URL(request.webhook).hostname;
  if (key.webhookHosts !== null && !hostAllowed(key.webhookHosts, host))
    throw refuseWebhook(
      key.webhookHosts.length === 0
        ? "webhook is refused: this API key may not use webhooks (its operator set no webhook host for it)"
        : `webhook is refused: its host '${host.slice(0, 255)}' is not among this API key's webhook hosts (${key.webhookHosts.join(", ")}), which its operator sets`,
    );
}

/** What a text request asks to happen when it ends: `webhook` needs signing and an allowed host, `speak` speech. */
export function checkFinishOptions(
  key: ApiKeyRecord,
  request: GenerationRequest,
  webhooks: WebhookPolicy,
  speechEnabled: boolean,
): void {
  checkWebhook(key, request, webhooks);
  if (request.speak !== undefined) {
    if (!grants(key.scopes, { kind: "tts" }))
      throw new ApiError("FORBIDDEN", "speak needs text-to-speech access; this API key has no scope tts");
    if (!speechEnabled) throw new ApiError("SERVICE_UNAVAILABLE", "text-to-speech is not enabled on this deployment");
  }
}

/**
 * A submit with `webhook` from a key holding `cap` deliveries queued and not yet ended is refused
 * (429): its receivers are slow or failing, and a bound per key keeps one key's backlog from growing
 * without end. Refused rather than dropping the oldest: a delivery once queued is a promise kept.
 */
export async function refuseWhenWebhooksBackedUp(
  key: ApiKeyRecord,
  request: GenerationRequest,
  webhooks: WebhookPolicy,
  cap: number,
): Promise<void> {
  if (request.webhook === undefined) return;
  const pending = await webhooks.pending(key.id);
  if (pending < cap) return;
  throw new ApiError(
    "RATE_LIMITED",
    `this API key has ${pending} webhook deliveries queued and not yet ended (its cap: ${cap}); a submit with webhook is refused until some end. Send it without webhook and poll, or retry later`,
    { parameter: "webhook", pending, cap },
    BACKED_UP_RETRY_SECONDS,
  );
}
