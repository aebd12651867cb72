import { KNOWN_SCOPES, SCOPE_ALL } from "../scopes.js";
import {
  CAPPED_HOLDINGS,
  LIMITED_OPERATIONS,
  MAX_USAGE_BUDGET,
  PRIORITY_TIERS,
  USAGE_BUDGETS,
  type KeyLimits,
  type PriorityTier,
} from "../rate-limits.js";
import { ApiError } from "../errors.js";
import { compileValidator } from "../validation/validator.js";
import { webhookHostsSchema } from "../webhooks/webhook-hosts.js";

/** Longest key name: it is shown in `keys list` and logs, one line per key. */
export const MAX_API_KEY_NAME_CHARS = 100;

const perMinute = {
  type: "integer",
  minimum: 1,
  description: "requests per minute for this key only (overrides the deployment's limit)",
} as const;
const heldAtOnce = {
  type: "integer",
  minimum: 1,
  maximum: 1000000,
  description:
    "most held at once by this key only (overrides the deployment's cap): inflight, text requests waiting or running; streams, open status streams and Prefer: wait holds; webhooks, webhook deliveries queued and not yet ended",
} as const;

const usageBudget = {
  type: "integer",
  minimum: 1,
  maximum: MAX_USAGE_BUDGET,
  description:
    "most used per UTC day (_day) or UTC month (_month) by this key only (overrides the deployment's budget): tokens_*, prompt and completion tokens; audio_seconds_*, seconds of synthesized speech",
} as const;

/** A key's own limits: each a per-minute budget, a cap or a usage budget, overriding the deployment's. */
const keyLimitProperties = {
  ...Object.fromEntries(LIMITED_OPERATIONS.map((operation) => [operation, perMinute])),
  ...Object.fromEntries(CAPPED_HOLDINGS.map((holding) => [holding, heldAtOnce])),
  ...Object.fromEntries(USAGE_BUDGETS.map((budget) => [budget, usageBudget])),
} as Record<keyof KeyLimits, typeof perMinute | typeof heldAtOnce | typeof usageBudget>;

const expiresAtSchema = {
  type: "string",
  format: "date-time",
  description: "ISO 8601 time after which the key is refused (401); in the future",
} as const;

const prioritySchema = {
  type: "string",
  enum: [...PRIORITY_TIERS],
  description:
    "how this key's text requests weigh in the queue's turns against other keys' (high: twice a normal key's share of starts while both have requests waiting; low: half); every tier keeps progressing",
} as const;

const scopesSchema = {
  type: "array",
  items: { type: "string", enum: [...KNOWN_SCOPES] },
  minItems: 1,
  uniqueItems: true,
} as const;

/**
 * What a new API key is made of, for POST /admin/keys and `npm run keys -- create` alike: the key
 * store checks it, so both callers share these bounds.
 */
export const newApiKeySchema = {
  type: "object",
  required: ["name"],
  additionalProperties: false,
  properties: {
    name: {
      type: "string",
      minLength: 1,
      maxLength: MAX_API_KEY_NAME_CHARS,
      pattern: "\\S",
      description: "unique among keys not revoked",
    },
    scopes: { ...scopesSchema, default: [SCOPE_ALL] },
    limits: { type: "object", additionalProperties: false, properties: keyLimitProperties, default: {} },
    webhookHosts: webhookHostsSchema,
    expiresAt: expiresAtSchema,
    priority: { ...prioritySchema, default: "normal" },
    rotate: {
      type: "boolean",
      default: false,
      description: "revoke a key holding the name first (how a key is rotated under its name)",
    },
  },
} as const;

export interface NewApiKeyRequest {
  name: string;
  scopes: string[];
  limits: KeyLimits;
  webhookHosts?: string[];
  expiresAt?: string;
  priority: PriorityTier;
  rotate: boolean;
}

/** The request with its defaults filled in, or ApiError INVALID_PARAMETER naming every bad field. */
export const validateNewApiKey = compileValidator<NewApiKeyRequest>(newApiKeySchema);

/**
 * A change to a key (PATCH /admin/keys/{id}, `keys update`): `scopes` replaces the key's scopes;
 * each entry of `limits` sets that limit, or with null drops the key's own value (the deployment's
 * applies again). Limits not named stay as they are. `webhookHosts` replaces the key's list; null drops it.
 * `expiresAt` sets when the key stops working; null: never. `priority` sets its tier.
 */
export const keyUpdateSchema = {
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  properties: {
    scopes: scopesSchema,
    limits: {
      type: "object",
      additionalProperties: false,
      minProperties: 1,
      properties: Object.fromEntries(
        Object.entries(keyLimitProperties).map(([name, schema]) => [
          name,
          { ...schema, type: ["integer", "null"], description: `${schema.description}; null: the deployment's` },
        ]),
      ),
    },
    webhookHosts: {
      ...webhookHostsSchema,
      type: ["array", "null"],
      description: `${webhookHostsSchema.description} null: any host again.`,
    },
    expiresAt: {
      ...expiresAtSchema,
      type: ["string", "null"],
      description: `${expiresAtSchema.description}; null: never`,
    },
    priority: prioritySchema,
  },
} as const;

export interface KeyUpdate {
  scopes?: string[];
  limits?: { [Name in keyof KeyLimits]?: number | null };
  webhookHosts?: string[] | null;
  expiresAt?: string | null;
  priority?: PriorityTier;
}

/** The change, or ApiError INVALID_PARAMETER naming every bad field. */
export const validateKeyUpdate = compileValidator<KeyUpdate>(keyUpdateSchema);

/**
 * A valid `expiresAt` (the schema checked its form) as ms, or ApiError INVALID_PARAMETER when it is
 * not after `now`: a key born expired is a mistake, not a wish.
 */
export function expiryTime(expiresAt: string, now = Date.now()): number {
  const ms = Date.parse(expiresAt);
  if (!(ms > now))
    throw ApiError.invalidParameter(
      "expiresAt",
      "string (ISO 8601 date-time)",
      `expiresAt must be in the future (got ${expiresAt.slice(0, 40)})`,
    );
  return ms;
}
