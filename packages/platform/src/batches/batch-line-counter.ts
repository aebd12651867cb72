import { BATCH_LIMITS } from "@chorus/contracts";
import type { RedisClient } from "../redis/connection.js";
import type { RedisKeys } from "../redis/redis-keys.js";
import { parseBatchLineRef } from "./batch-line-id.js";
import type { BatchStore } from "./batch-store.js";

/**
 * Counts a batch line's end in its batch, told by StatusStore.finish (where metering is) by whoever
 * turned the line's record final: the worker that ran it, a cancel, the lost-job or queue-deadline
 * sweep. The count is idempotent on the line. Its record is kept for the batch's window beyond the
 * usual retention (the batch's output is read from it), and the feeders are told to top the batch up.
 */
export class BatchLineCounter {
  constructor(
    private readonly batches: BatchStore,
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly statusTtlSeconds: number,
  ) {}

  async ended(ref: string, requestId: string, completed: boolean): Promise<void> {
    const line = parseBatchLineRef(ref);
    if (!line) return;
    // One round trip: both sent at once (the count tells the feeders itself).
    await Promise.all([
      this.redis.expire(this.keys.status(requestId), BATCH_LIMITS.windowSeconds + this.statusTtlSeconds),
      this.batches.countLine(line.batchId, line.line, completed, "", true),
    ]);
  }
}
