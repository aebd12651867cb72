import { ApiError, checkWebhookUrl, grants, type GenerationRequest } from "@chorus/contracts";
import type { ApiKeyRecord } from "@chorus/platform/api-keys";

export interface WebhookPolicy {
  /** WEBHOOK_SECRET is set: without it nothing could be signed, so `webhook` is refused. */
  enabled: boolean;
  /** WEBHOOK_ALLOW_PRIVATE. */
  allowPrivate: boolean;
}

const WEBHOOKS_OFF =
  "webhook is not available on this deployment: no WEBHOOK_SECRET is configured. Its operator sets one on the gateways and workers, " +
  'e.g. WEBHOOK_SECRET="whsec_$(openssl rand -base64 32)" (see docs/api.md, Webhooks)';

/** What a text request asks to happen when it ends: `webhook` needs signing and an allowed host, `speak` speech. */
export function checkFinishOptions(
  key: ApiKeyRecord,
  request: GenerationRequest,
  webhooks: WebhookPolicy,
  speechEnabled: boolean,
): void {
  if (request.webhook !== undefined) {
    if (!webhooks.enabled) throw ApiError.invalidParameter("webhook", "none", WEBHOOKS_OFF);
    checkWebhookUrl(request.webhook, webhooks.allowPrivate);
  }
  if (request.speak !== undefined) {
    if (!grants(key.scopes, { kind: "tts" }))
      throw new ApiError("FORBIDDEN", "speak needs text-to-speech access; this API key has no scope tts");
    if (!speechEnabled) throw new ApiError("SERVICE_UNAVAILABLE", "text-to-speech is not enabled on this deployment");
  }
}
