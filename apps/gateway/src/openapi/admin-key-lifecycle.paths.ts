import { webhookSecretRotationSchema } from "@chorus/contracts";
import { json, type Operation, type Paths } from "./operation.js";
import { errors } from "./responses.js";
import { schemaRef, type Schema } from "./schemas.js";

const admin = { tags: ["Admin"], security: [{ adminToken: [] }] } satisfies Partial<Operation>;

/** A listed key (with its last use) and a rotated one (with its new secret), from the key's own fields. */
export function keyLifecycleSchemas(keyFields: Record<string, Schema>) {
  return {
    ListedApiKey: {
      type: "object",
      required: [...Object.keys(keyFields), "lastUsedAt"],
      properties: {
        ...keyFields,
        lastUsedAt: {
          type: ["string", "null"],
          format: "date-time",
          description:
            "When it last authenticated, to the minute (each gateway writes it at most once a minute per key); null: not yet.",
        },
      },
    },
    ApiKeyRotation: {
      ...(webhookSecretRotationSchema as unknown as Schema),
      properties: {
        overlapSeconds: {
          ...(webhookSecretRotationSchema.properties.overlapSeconds as unknown as Schema),
          description: "How long the replaced secret is still accepted beside the new one; 0: it stops at once.",
        },
      },
    },
    RotatedApiKey: {
      type: "object",
      required: [...Object.keys(keyFields), "key", "previousValidUntil"],
      properties: {
        ...keyFields,
        key: { type: "string", description: "The new secret. Shown this once: only its hash is stored." },
        previousValidUntil: {
          type: ["string", "null"],
          format: "date-time",
          description: "Until when the replaced secret is still accepted; null: no longer.",
        },
      },
    },
  } satisfies Record<string, Schema>;
}

/** POST /admin/keys/{id}/rotate. */
export function keyLifecyclePaths(key: object): Paths {
  return {
    "/admin/keys/{id}/rotate": {
      post: {
        ...admin,
        operationId: "rotateApiKey",
        summary: "Give an API key a new secret, keeping the key",
        description:
          "`npm run keys -- rotate ID --overlap 1h`. Its id, name, scopes, limits, expiry, usage and webhook secret stay. With `overlapSeconds` the replaced secret is still accepted that long, then gets 401; without, it stops at once (on the other gateways within `KEY_CACHE_TTL_MS`). Only the newest replaced secret overlaps: rotating again ends an earlier overlap. A revoked key is 409 CONFLICT.",
        parameters: [
          { name: "id", in: "path", required: true, schema: { type: "string" }, description: "The key's `id`." },
        ],
        requestBody: {
          required: false,
          content: json(schemaRef("ApiKeyRotation"), { overlap: { overlapSeconds: 3600 } }),
        },
        responses: {
          "200": {
            description: "The key, with its new secret shown once.",
            content: json(schemaRef("RotatedApiKey"), {
              rotated: { ...key, key: "ck_Qm7…", previousValidUntil: "2026-01-01T13:00:00.000Z" },
            }),
          },
          ...errors(400, 401, 404, 409, 413, 415, 429, 500, 503),
        },
      },
    },
  };
}
