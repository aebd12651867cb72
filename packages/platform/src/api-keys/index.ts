export {
  ApiKeyError,
  ApiKeyRevoked,
  ApiKeyStore,
  type ApiKeyRecord,
  type ListedApiKey,
  type NewApiKey,
} from "./api-key-store.js";
export { type RotatedSecret } from "./api-key-rotation.js";
export { KeyLastUsed, LAST_USED_WRITE_INTERVAL_MS } from "./key-last-used.js";
export { ApiKeyUsage, sumUsage, utcDay, type DailyUsage, type UsageOperation } from "./api-key-usage.js";
export { CachedApiKeys, type ApiKeyLookup } from "./cached-api-keys.js";
export { newWebhookSecret, WebhookSecrets, type RotatedWebhookSecret, type WebhookSigning } from "./webhook-secrets.js";
