import { KNOWN_SCOPES, SCOPE_ALL } from "../scopes.js";
import { CAPPED_HOLDINGS, LIMITED_OPERATIONS, type KeyLimits } from "../rate-limits.js";
import { compileValidator } from "../validation/validator.js";

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
    "most held at once by this key only (overrides the deployment's cap): inflight, text requests waiting or running; streams, open status streams and Prefer: wait holds",
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
    scopes: {
      type: "array",
      items: { type: "string", enum: [...KNOWN_SCOPES] },
      minItems: 1,
      uniqueItems: true,
      default: [SCOPE_ALL],
    },
    limits: {
      type: "object",
      additionalProperties: false,
      properties: {
        ...Object.fromEntries(LIMITED_OPERATIONS.map((operation) => [operation, perMinute])),
        ...Object.fromEntries(CAPPED_HOLDINGS.map((holding) => [holding, heldAtOnce])),
      },
      default: {},
    },
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
  rotate: boolean;
}

/** The request with its defaults filled in, or ApiError INVALID_PARAMETER naming every bad field. */
export const validateNewApiKey = compileValidator<NewApiKeyRequest>(newApiKeySchema);
