export { createWebhookQueue, WebhookOutbox, type WebhookRetries } from "./webhook-outbox.js";
export { WebhookTurns } from "./webhook-turns.js";
export {
  readBreakers,
  WebhookBreakers,
  type BreakerGate,
  type BreakerSettings,
  type BreakerState,
} from "./webhook-breakers.js";
