/**
 * `@chorus/worker`: what tests and deployment checks assemble a worker from (its BullMQ workers,
 * their dependencies, its settings). The process itself is `main.ts` (`@chorus/worker/main`).
 */
export { listenForCancellations } from "./cancellation-listener.js";
export { loadWorkerConfig, WORKER_ENV } from "./config.js";
export { ReplyLengthStats } from "./progress/reply-length-stats.js";
export { WebhookSender } from "./webhooks/webhook-sender.js";
export { createWebhookWorker } from "./webhooks/webhook-worker.js";
export { createWorkers, type WorkerDeps } from "./worker.js";
export { WorkerPresence } from "./worker-presence.js";
export { createCacheRouting } from "./routing/create-cache-routing.js";
export type { CacheRouting, RoutingDecision } from "./routing/cache-routing.js";
