import { webhookHostsSchema, webhookSecretRotationSchema } from "@chorus/contracts";
import { json, type Operation, type Paths } from "./operation.js";
import { errors } from "./responses.js";
import { schemaRef, type Schema } from "./schemas.js";

const admin = { tags: ["Admin"], security: [{ adminToken: [] }] } satisfies Partial<Operation>;
const dateTime: Schema = { type: ["string", "null"], format: "date-time" };

/** A key's webhook settings and state as the admin API shows them; never a secret. */
export const ADMIN_WEBHOOK_SCHEMAS = {
  WebhookSecretRotation: webhookSecretRotationSchema as unknown as Schema,
  RotatedWebhookSecret: {
    type: "object",
    required: ["id", "webhookSecret", "previousValidUntil"],
    properties: {
      id: { type: "string" },
      webhookSecret: {
        type: "string",
        description: "The key's new Standard Webhooks signing secret (`whsec_…`). Shown this once.",
      },
      previousValidUntil: {
        ...dateTime,
        description:
          "Until when the replaced secret still signs beside it (deliveries carry both signatures); null: not at all.",
      },
    },
  },
  WebhookAddressState: {
    type: "object",
    required: ["address", "state", "consecutiveFailures", "pausedUntil"],
    properties: {
      address: { type: "string", description: "A receiver's origin (`https://host:port`)." },
      state: {
        type: "string",
        enum: ["closed", "paused", "trial"],
        description:
          "`closed`: failing, not paused yet; `paused`: this key's attempts to it fail at once until `pausedUntil`; `trial`: the pause is over, the next attempt decides (a success closes it, a failure pauses it again).",
      },
      consecutiveFailures: { type: "integer", minimum: 1 },
      pausedUntil: dateTime,
    },
  },
  ApiKeyWebhooks: {
    type: "object",
    required: ["id", "signing", "hosts", "pending", "maxPending", "addresses"],
    properties: {
      id: { type: "string" },
      signing: {
        type: "object",
        required: ["ownSecret", "previousValidUntil"],
        properties: {
          ownSecret: {
            type: "boolean",
            description:
              "false: a key made before keys had their own secret, signed with the deployment's WEBHOOK_SECRET.",
          },
          previousValidUntil: {
            ...dateTime,
            description: "During a rotation's overlap: until when the replaced secret signs.",
          },
        },
      },
      hosts: { ...(webhookHostsSchema as unknown as Schema), type: ["array", "null"] },
      pending: {
        type: "integer",
        minimum: 0,
        description: "Deliveries queued and not yet ended (delivered or given up).",
      },
      maxPending: {
        type: "integer",
        description:
          "At this many, a submit with `webhook` is 429 (MAX_PENDING_WEBHOOKS_PER_KEY, or the key's `webhooks` limit).",
      },
      addresses: {
        type: "array",
        items: schemaRef("WebhookAddressState"),
        description:
          "The key's receiver addresses that failed lately (circuit breaker); one that answers again leaves the list.",
      },
    },
  },
} satisfies Record<string, Schema>;

const idParameter = { name: "id", in: "path", required: true, schema: { type: "string" } } as const;
const keyId = "key_3f9a0c1b2d4e5f60";

/** Rotating a key's webhook signing secret, and the state of its webhooks. */
export function adminWebhookPaths(): Paths {
  return {
    "/admin/keys/{id}/webhook-secret": {
      post: {
        ...admin,
        operationId: "rotateWebhookSecret",
        summary: "Give a key a new webhook signing secret",
        description:
          "`npm run keys -- rotate-webhook-secret ID --overlap 1h`. With `overlapSeconds` the replaced secret (for a key made before per-key secrets: the deployment's WEBHOOK_SECRET) still signs beside the new one that long: every delivery carries both signatures in `webhook-signature`, so the key's owner can move its receivers over. A revoked key is 409 CONFLICT.",
        parameters: [idParameter],
        requestBody: {
          required: false,
          content: json(schemaRef("WebhookSecretRotation"), { overlap: { overlapSeconds: 3600 } }),
        },
        responses: {
          "200": {
            description: "The new secret, shown this once.",
            content: json(schemaRef("RotatedWebhookSecret"), {
              rotated: { id: keyId, webhookSecret: "whsec_Kx3…", previousValidUntil: "2026-01-01T13:00:00.000Z" },
            }),
          },
          ...errors(400, 401, 404, 409, 413, 415, 429, 500, 503),
        },
      },
    },
    "/admin/keys/{id}/webhooks": {
      get: {
        ...admin,
        operationId: "getApiKeyWebhooks",
        summary: "A key's webhooks: signing, hosts, deliveries pending, paused addresses",
        parameters: [idParameter],
        responses: {
          "200": {
            description: "As the gateways and workers see it now.",
            content: json(schemaRef("ApiKeyWebhooks"), {
              paused: {
                id: keyId,
                signing: { ownSecret: true, previousValidUntil: null },
                hosts: ["hooks.partner-a.example"],
                pending: 12,
                maxPending: 1000,
                addresses: [
                  {
                    address: "https://hooks.partner-a.example",
                    state: "paused",
                    consecutiveFailures: 5,
                    pausedUntil: "2026-01-01T12:05:00.000Z",
                  },
                ],
              },
            }),
          },
          ...errors(401, 404, 429, 500, 503),
        },
      },
    },
  };
}
