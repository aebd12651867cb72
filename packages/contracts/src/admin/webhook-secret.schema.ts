import { compileValidator } from "../validation/validator.js";

/** Longest overlap of a rotation: the old secret signs beside the new one at most this long. */
export const MAX_WEBHOOK_SECRET_OVERLAP_SECONDS = 30 * 24 * 3600;

/** POST /admin/keys/{id}/webhook-secret and `keys rotate-webhook-secret ID --overlap`. */
export const webhookSecretRotationSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    overlapSeconds: {
      type: "integer",
      minimum: 0,
      maximum: MAX_WEBHOOK_SECRET_OVERLAP_SECONDS,
      default: 0,
      description:
        "How long the replaced secret still signs beside the new one (deliveries then carry both signatures), so receivers can move over; 0: it stops at once.",
    },
  },
} as const;

export interface WebhookSecretRotation {
  overlapSeconds: number;
}

export const validateWebhookSecretRotation = compileValidator<WebhookSecretRotation>(webhookSecretRotationSchema);

/** POST /admin/keys/{id}/rotate and `keys rotate ID --overlap`: the same body, the old API key's secret overlapping. */
export const validateKeyRotation = validateWebhookSecretRotation;
