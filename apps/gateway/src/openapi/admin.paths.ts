import { keyUpdateSchema, LIMITED_OPERATIONS, newApiKeySchema, webhookHostsSchema } from "@chorus/contracts";
import { keyLifecyclePaths, keyLifecycleSchemas } from "./admin-key-lifecycle.paths.js";
import { ADMIN_WEBHOOK_SCHEMAS, adminWebhookPaths } from "./admin-webhooks.paths.js";
import { json, type Operation, type Paths } from "./operation.js";
import { errors } from "./responses.js";
import { schemaRef, type Schema } from "./schemas.js";

const admin = { tags: ["Admin"], security: [{ adminToken: [] }] } satisfies Partial<Operation>;

const limits: Schema = {
  ...(newApiKeySchema.properties.limits as unknown as Schema),
  description: "This key's own limits (per-minute budgets and caps); the deployment's apply to those not named.",
};
const keyFields = {
  id: { type: "string", description: "Names the key in the admin API, the CLI and the logs; not a secret." },
  name: { type: "string" },
  scopes: { type: "array", items: { type: "string" } },
  limits,
  webhookHosts: { ...(webhookHostsSchema as unknown as Schema), type: ["array", "null"] },
  webhookSigning: {
    type: "string",
    enum: ["own", "deployment"],
    description:
      "`own`: its webhooks are signed with its own secret; `deployment`: a key made before keys had one, signed with WEBHOOK_SECRET (rotate it to give it its own).",
  },
  createdAt: { type: "string", format: "date-time" },
  expiresAt: {
    type: ["string", "null"],
    format: "date-time",
    description: "After it the key gets 401 UNAUTHORIZED (`details.reason`: `expired`); null: never.",
  },
  priority: newApiKeySchema.properties.priority as unknown as Schema,
  revoked: { type: "boolean" },
} satisfies Record<string, Schema>;
const perOperation: Schema = {
  type: "object",
  required: [...LIMITED_OPERATIONS],
  properties: Object.fromEntries(LIMITED_OPERATIONS.map((op) => [op, { type: "integer", minimum: 0 }])),
};
const usageFields = {
  requests: {
    ...perOperation,
    description:
      "Requests admitted past authentication and the operation's rate limit, whatever their answer (`status`: polls, cancels, lists and batches).",
  },
  tokens: {
    type: "integer",
    minimum: 0,
    description: "Generated tokens of completed text requests, as their records report them.",
  },
  promptTokens: { type: "integer", minimum: 0 },
  speechSeconds: { type: "number", minimum: 0, description: "Seconds of speech synthesized." },
} satisfies Record<string, Schema>;

/** The admin API's own shapes; the request body is the contract's schema, the one the key store checks. */
export const ADMIN_SCHEMAS = {
  NewApiKeyRequest: newApiKeySchema as unknown as Schema,
  ApiKeyUpdate: keyUpdateSchema as unknown as Schema,
  ApiKey: {
    type: "object",
    required: Object.keys(keyFields),
    properties: keyFields,
  },
  NewApiKey: {
    type: "object",
    required: ["key", "webhookSecret", ...Object.keys(keyFields)],
    properties: {
      ...keyFields,
      key: { type: "string", description: "The secret API key. Shown this once: only its hash is stored." },
      webhookSecret: {
        type: "string",
        description:
          "The key's own Standard Webhooks signing secret (`whsec_…`): its webhooks are signed with it and no other key's. Shown this once; a new one: POST /admin/keys/{id}/webhook-secret.",
      },
    },
  },
  ApiKeyList: {
    type: "object",
    required: ["data"],
    properties: {
      data: { type: "array", items: schemaRef("ListedApiKey"), description: "Oldest first, revoked keys included." },
    },
  },
  DailyUsage: {
    type: "object",
    required: ["date", ...Object.keys(usageFields)],
    properties: { date: { type: "string", format: "date", description: "A UTC day." }, ...usageFields },
  },
  ApiKeyUsage: {
    type: "object",
    required: ["id", "days", "total"],
    properties: {
      id: { type: "string" },
      days: {
        type: "array",
        items: schemaRef("DailyUsage"),
        minItems: 30,
        maxItems: 30,
        description: "The last 30 UTC days, today last; zeros where nothing was counted.",
      },
      total: {
        type: "object",
        required: Object.keys(usageFields),
        properties: usageFields,
        description: "The 30 days added up.",
      },
    },
  },
  ...ADMIN_WEBHOOK_SCHEMAS,
  ...keyLifecycleSchemas(keyFields),
} satisfies Record<string, Schema>;

const key = {
  id: "key_3f9a0c1b2d4e5f60",
  name: "partner-a",
  scopes: ["text:*", "tts"],
  limits: { text: 300 },
  webhookHosts: ["hooks.partner-a.example"],
  webhookSigning: "own",
  createdAt: "2026-01-01T12:00:00.000Z",
  expiresAt: null,
  priority: "normal",
  revoked: false,
};
const used = (text: number, tts: number) => ({
  requests: { text, tts, status: text * 4 },
  tokens: text * 120,
  promptTokens: text * 300,
  speechSeconds: tts * 3.5,
});
/** 30 days ending 2026-01-30: two days of use, the rest zeros. */
const usageExample = {
  id: key.id,
  days: Array.from({ length: 30 }, (_, i) => ({
    date: `2026-01-${String(i + 1).padStart(2, "0")}`,
    ...used(i === 27 ? 3 : i === 29 ? 1 : 0, i === 29 ? 2 : 0),
  })),
  total: used(4, 2),
};
const idParameter = {
  name: "id",
  in: "path",
  required: true,
  schema: { type: "string" },
  description: "The key's `id`.",
} as const;

/** The operators' API: keys (the keys CLI's store, over HTTP) and their usage. Exists only with ADMIN_TOKEN set. */
export function adminPaths(): Paths {
  return {
    "/admin/keys": {
      post: {
        ...admin,
        operationId: "createApiKey",
        summary: "Create an API key",
        description:
          "The same bounds as `npm run keys -- create`. A name already held by a key not revoked is 409 CONFLICT, unless `rotate` revokes that key first (to keep the key and change only its secret: POST /admin/keys/{id}/rotate). `expiresAt` must be in the future (else 400). The key gets its own webhook signing secret, answered here once; `webhookHosts` restricts its webhooks to those hosts.",
        requestBody: {
          required: true,
          content: json(schemaRef("NewApiKeyRequest"), {
            partner: {
              name: "partner-a",
              scopes: ["text:*", "tts"],
              limits: { text: 300 },
              webhookHosts: ["hooks.partner-a.example"],
            },
          }),
        },
        responses: {
          "201": {
            description: "The key, with its secret shown once.",
            content: json(schemaRef("NewApiKey"), { created: { ...key, key: "ck_Xb3…", webhookSecret: "whsec_Q2h…" } }),
          },
          ...errors(400, 401, 409, 413, 415, 429, 500, 503),
        },
      },
      get: {
        ...admin,
        operationId: "listApiKeys",
        summary: "List the API keys (never their secrets)",
        responses: {
          "200": {
            description: "Every key.",
            content: json(schemaRef("ApiKeyList"), {
              keys: { data: [{ ...key, lastUsedAt: "2026-01-02T08:41:07.000Z" }] },
            }),
          },
          ...errors(401, 429, 500, 503),
        },
      },
    },
    "/admin/keys/{id}": {
      patch: {
        ...admin,
        operationId: "updateApiKey",
        summary: "Change an API key's scopes, limits, webhook hosts, expiry or priority tier",
        description:
          "The key keeps its secret, id and usage (`npm run keys -- update ID`). `scopes` replaces its scopes; each entry of `limits` sets that limit, or with `null` drops the key's own value so the deployment's applies again; limits not named stay. `webhookHosts` replaces the hosts its webhooks may name (a submit naming another is 400); `null`: any host again. `expiresAt` (in the future, else 400) sets when the key stops working; `null`: never. `priority` (`high`, `normal`, `low`) sets how its text requests weigh in the queue's turns. " +
          "At once on the gateway that answers; on the others within their key cache's time (`KEY_CACHE_TTL_MS`, 5 s by default). A revoked key is 409 CONFLICT.",
        parameters: [idParameter],
        requestBody: {
          required: true,
          content: json(schemaRef("ApiKeyUpdate"), {
            raise: { limits: { text: 600, inflight: 20 } },
            back: { limits: { text: null } },
            narrow: { scopes: ["text:Witch"] },
            hosts: { webhookHosts: ["hooks.partner-a.example", "*.partner-a.example"] },
            expiry: { expiresAt: "2026-12-31T23:59:59Z" },
            tier: { priority: "high" },
          }),
        },
        responses: {
          "200": {
            description: "The key as it is now.",
            content: json(schemaRef("ApiKey"), { updated: { ...key, limits: { text: 600 } } }),
          },
          ...errors(400, 401, 404, 409, 413, 415, 429, 500, 503),
        },
      },
      delete: {
        ...admin,
        operationId: "revokeApiKey",
        summary: "Revoke an API key",
        description:
          "`id` only ever matches a key's id, never a name (a key may be named like another key's id): an id no key has is 404 NOT_FOUND, " +
          "even when some key is named so; a key is revoked by name only with `npm run keys -- revoke --name NAME`. " +
          "At once on the gateway that answers; on the others within their key cache's time (`KEY_CACHE_TTL_MS`). Its name is free again. Revoking a revoked key is 204 as well.",
        parameters: [idParameter],
        responses: { "204": { description: "Revoked." }, ...errors(401, 404, 429, 500, 503) },
      },
    },
    ...keyLifecyclePaths(key),
    ...adminWebhookPaths(),
    "/admin/keys/{id}/usage": {
      get: {
        ...admin,
        operationId: "getApiKeyUsage",
        summary: "A key's usage per UTC day, the last 30 days",
        parameters: [idParameter],
        responses: {
          "200": {
            description: "Counted by the gateways (requests) and the workers (tokens, speech) as the work happens.",
            content: json(schemaRef("ApiKeyUsage"), { usage: usageExample }),
          },
          ...errors(401, 404, 429, 500, 503),
        },
      },
    },
  };
}
