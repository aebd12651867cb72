export * from "./models.js";
export * from "./limits.js";
export * from "./errors.js";
export * from "./status-record.js";
export * from "./request-id.js";
export * from "./status-lists/index.js";
export * from "./jobs.js";
export * from "./text/generation-request.js";
export * from "./text/sampling-knobs.js";
export * from "./text/response-format.js";
export * from "./text/engine-features.js";
export * from "./text/tools.js";
export { unsupportedSchemaPart, type UnsupportedPart } from "./text/json-schema-support.js";
export { sentSamplingParams, validateGenerationRequest } from "./text/validate-generation-request.js";
export {
  characterModelRequestSchema,
  defaultModelRequestSchema,
  SAMPLING_PARAM_SCHEMAS,
} from "./text/generation-request.schema.js";
export { compileQueryValidator, compileValidator, type Validator } from "./validation/validator.js";
export * from "./speech/index.js";
export * from "./webhooks/index.js";
export * from "./usage/index.js";
export * from "./scopes.js";
export * from "./rate-limits.js";
export { errorEnvelopeSchema } from "./errors.schema.js";
export { statusRecordSchema } from "./status-record.schema.js";
export {
  expiryTime,
  keyUpdateSchema,
  MAX_API_KEY_NAME_CHARS,
  newApiKeySchema,
  validateKeyUpdate,
  validateNewApiKey,
  type KeyUpdate,
  type NewApiKeyRequest,
} from "./admin/new-api-key.schema.js";
export {
  MAX_WEBHOOK_SECRET_OVERLAP_SECONDS,
  validateWebhookSecretRotation,
  validateKeyRotation,
  webhookSecretRotationSchema,
  type WebhookSecretRotation,
} from "./admin/webhook-secret.schema.js";
export * from "./openai/index.js";
