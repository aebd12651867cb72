import { randomUUID } from "node:crypto";
import { CANCELLED_ERROR, JOB_NAMES, type GenerateTextJob, type GenerationRequest, type ModelId, type SamplingParams } from "@chorus/contracts";
import type { RedisKeys, StatusStore, RedisClient } from "@chorus/platform";
import type { Queue } from "bullmq";
import type { ReplicaWait } from "./replica-wait.js";

/** The `error` of a record whose job could not be queued (its client was told so and holds no id). */
const NOT_QUEUED_ERROR = "not queued: the job could not be stored";

/** Accepting and cancelling generations. */
export class TextJobs {
  constructor(
    private readonly statuses: StatusStore,
    private readonly queue: Queue<GenerateTextJob>,
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    /** Confirms, on the connection that wrote both, that replicas hold the record and the job. */
    private readonly replicated: ReplicaWait,
  ) {}

  /**
   * The status record and the job are sent together: both go down the same connection in that
   * order, so a worker never finds the record missing, and the client waits one round trip, not two.
   * On a Redis Cluster they live on different nodes, where one connection's order means nothing:
   * there the record is stored first (one more round trip), and a record that fails queues nothing.
   * Should either fail, what was written of the record is closed at once (closeUnqueued) and the
   * client gets the error; a job queued anyway finds its record closed and is skipped. With
   * REDIS_WAIT_REPLICAS, the id is returned only once replicas confirm both; when they do not, the
   * record is left as it is (a retry with the same Idempotency-Key may be handed this id if the
   * key's release is lost in a failover).
   */
  async submit(keyId: string, model: ModelId, request: GenerationRequest, clientSampling: Partial<SamplingParams> = {}, requestId: string = randomUUID()): Promise<string> {
    const job: GenerateTextJob = { requestId, keyId, model, request, clientSampling, acceptedAt: Date.now() };
    const creating = this.statuses.create(requestId, keyId, model, job.acceptedAt, request.webhook);
    if (this.redis.isCluster) await creating.catch((error: unknown) => this.closeUnqueued(requestId, error));
    const [created, queued] = await Promise.allSettled([creating, this.queue.add(JOB_NAMES.generateText, job, { jobId: requestId })]);
    if (queued.status === "rejected") return this.closeUnqueued(requestId, queued.reason);
    if (created.status === "rejected") return this.closeUnqueued(requestId, created.reason);
    await this.replicated.confirm();
    return requestId;
  }

  /**
   * A submit that failed (its client gets the error, never this id): whatever part of its record was
   * written is closed, so it neither runs (a worker skips a record that is not processing), nor
   * counts in a queue position, nor stays `processing` in its key's listing. If even that fails, the
   * lost-job sweep closes it.
   */
  private async closeUnqueued(requestId: string, error: unknown): Promise<never> {
    await this.statuses.fail(requestId, NOT_QUEUED_ERROR).catch(() => undefined);
    throw error;
  }

  /**
   * Marks the record `error: cancelled` (only if still processing), removes a waiting job, and tells
   * every worker to abort it if one is running it. Returns false when the job had already finished.
   */
  async cancel(requestId: string): Promise<boolean> {
    if (!(await this.statuses.fail(requestId, CANCELLED_ERROR))) return false;
    await this.redis.publish(this.keys.cancelChannel(), requestId);
    // An active job is locked and stays; its worker aborts it on the message above. The record left
    // the queue-position set when it turned final, whether or not this removal happens.
    await this.queue.remove(requestId).catch(() => 0);
    return true;
  }
}
