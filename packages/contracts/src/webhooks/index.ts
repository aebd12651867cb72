// Webhook destinations and what is delivered: the URL checks at submit, the address rule shared with
// delivery, a key's allowed hosts and the events a request asks for. No I/O.
export { checkWebhookUrl } from "./webhook-url.js";
export { ipLiteralOf, isLocalName, isPrivateAddress, NOT_PUBLIC, refusedHostReason } from "./webhook-address.js";
export { hostAllowed, MAX_WEBHOOK_HOSTS, webhookHostPatternSchema, webhookHostsSchema } from "./webhook-hosts.js";
export {
  DEFAULT_WEBHOOK_EVENTS,
  parseWebhookEvents,
  storedWebhookEvents,
  WEBHOOK_EVENTS,
  webhookEventOf,
  type WebhookEvent,
} from "./webhook-events.js";
