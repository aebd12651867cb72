import type { RedisClient } from "@chorus/platform/redis";
import { ApiError } from "@chorus/contracts";

/**
 * Redis replicates asynchronously: a write the master acknowledged is lost if the master dies before
 * a replica has it, and Sentinel then promotes a replica without it. WAIT blocks until `replicas`
 * replicas have every write this connection made so far (or the timeout passes), so a submit whose
 * record and job went down `connection` is answered 200 only once a failover cannot lose them.
 * Too few replicas in time: 503 with Retry-After; the client's retry (same Idempotency-Key) is safe.
 */
export class ReplicaWait {
  constructor(
    private readonly connection: RedisClient,
    private readonly replicas: number,
    private readonly timeoutMs: number,
  ) {}

  async confirm(): Promise<void> {
    if (this.replicas === 0) return;
    const acknowledged = await this.connection.wait(this.replicas, this.timeoutMs);
    if (acknowledged < this.replicas) {
      throw new ApiError(
        "SERVICE_UNAVAILABLE",
        `the request could not be stored safely (${acknowledged} of ${this.replicas} Redis replicas confirmed it); retry with the same Idempotency-Key`,
        undefined,
        1,
      );
    }
  }
}
