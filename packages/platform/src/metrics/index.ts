export {
  createMetrics,
  type GatewayMetrics,
  type JobOutcome,
  type MeteredUse,
  type MetricsOptions,
  type ServiceName,
  type WorkerMetrics,
} from "./metrics.js";
export { metricsRequestAllowed } from "./metrics-token.js";
export { readQueueDepths, type CountableQueue, type QueueDepthReader, type QueueDepths } from "./queue-depth.js";
