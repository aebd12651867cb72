import { ApiError } from "@chorus/contracts";
import type { QueueDepth } from "../services/queue-depth.js";

/** Seconds a client is asked to wait when the queue is full. */
const FULL_QUEUE_RETRY_SECONDS = 5;

/** 503 with Retry-After once the text backlog reaches `maxDepth` (null: no bound). */
export function refuseWhenQueueFull(depth: QueueDepth, maxDepth: number | null): void {
  const backlog = depth.current;
  if (maxDepth === null || backlog === null || backlog < maxDepth) return;
  throw new ApiError(
    "SERVICE_UNAVAILABLE",
    `the service is at capacity (${backlog} requests queued or running); retry later`,
    undefined,
    FULL_QUEUE_RETRY_SECONDS,
  );
}
