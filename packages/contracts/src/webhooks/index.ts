// Webhook destinations: the URL checks at submit and the address rule shared with delivery. No I/O.
export { checkWebhookUrl } from "./webhook-url.js";
export { ipLiteralOf, isPrivateAddress, NOT_PUBLIC, refusedHostReason } from "./webhook-address.js";
