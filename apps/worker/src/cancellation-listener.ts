import { CANCELLED_ERROR, speakReplyJobId } from "@chorus/contracts";
import type { Logger } from "@chorus/platform/logger";
import type { RedisClient } from "@chorus/platform/redis";
import type { Worker } from "bullmq";

/**
 * Gateways publish a request id when its owner cancels it; whichever worker runs the job aborts it
 * at once (BullMQ hands the processor an AbortSignal), freeing the slot. Needs its own connection:
 * a subscribed Redis connection can do nothing else.
 */
export async function listenForCancellations(
  subscriber: RedisClient,
  channel: string,
  workers: Worker[],
  logger: Logger,
): Promise<void> {
  subscriber.on("message", (_channel: string, jobId: string) => {
    // Every worker is told: a routed job may have a copy in more than one of them (cache-routing.ts). A reply being
    // spoken runs as its own job on the speech queue.
    const ids = [jobId, speakReplyJobId(jobId)];
    const found = workers.flatMap((worker) => ids.map((id) => worker.cancelJob(id, CANCELLED_ERROR))).includes(true);
    if (found) logger.info("job cancelled by its owner", { jobId });
  });
  await subscriber.subscribe(channel);
}
