export { createWebhookQueue, WebhookOutbox, type WebhookRetries } from "./webhook-outbox.js";
