import { randomInt, randomUUID } from "node:crypto";
import {
  ApiError,
  CANCELLED_ERROR,
  type BudgetHold,
  JOB_NAMES,
  QUEUE_TIMEOUT_ERROR,
  SAMPLING_BOUNDS,
  type GenerateTextJob,
  type GenerationRequest,
  type ModelId,
  type SamplingParams,
} from "@chorus/contracts";
import type { UsageBudgetLedger } from "@chorus/platform/budgets";
import { corkForThisTick, type RedisKeys, type RedisClient } from "@chorus/platform/redis";
import { batchTurns, estimatedTurnCost, type StatusStore } from "@chorus/platform/scheduler";
import type { Queue } from "bullmq";
import type { ReplicaWait } from "./replica-wait.js";

/** The `error` of a record whose job could not be queued (its client was told so and holds no id). */
const NOT_QUEUED_ERROR = "not queued: the job could not be stored";

/** What admission hands TextJobs: the validated request, whose it is, and the key's cap. */
export interface NewTextJob {
  keyId: string;
  model: ModelId;
  request: GenerationRequest;
  /** The sampling fields the client sent (see GenerateTextJob). */
  clientSampling?: Partial<SamplingParams>;
  /** Given by an Idempotency-Key's claim; else a new one. */
  requestId?: string;
  /** The key's requests in flight (waiting or running) at which a submit is refused. */
  inFlightCap: number;
  /** A client streams the reply (/v1 with `stream`): the worker publishes its growth (GenerateTextJob.streamReply). */
  streamReply?: boolean;
  /** What admission held of the key's usage budgets, for the job's end to settle. */
  budget?: BudgetHold;
  /** What a turn of its work counts for its key (the key's priority tier); default 1. */
  turnWeight?: number;
  /** A batch line (batchLineRef): it takes its key's batch turns, and ends unstarted at `queueDeadline` (ms). */
  batchLine?: { ref: string; queueDeadline: number };
}

/** 429 naming the cap; Retry-After: about one job's time, when one of the key's requests should finish. */
function inFlightCapReached(cap: number, averageJobSeconds: number | null): ApiError {
  const retryAfter = Math.max(1, Math.ceil(averageJobSeconds ?? 1));
  const message = `this API key already has ${cap} text requests in flight (waiting or running), its cap (max in flight ${cap}); retry when one has finished`;
  return new ApiError("RATE_LIMITED", message, undefined, retryAfter);
}

/** A seed for a job whose request sent none: drawn once, so every attempt of the job samples alike. */
const jobSeed = () => randomInt(SAMPLING_BOUNDS.seed.min, SAMPLING_BOUNDS.seed.max + 1);

/** What a turn of the submission's work is estimated to cost its key, weighted by the key's tier. */
const turnCostOf = ({ request, clientSampling, turnWeight = 1 }: NewTextJob) =>
  estimatedTurnCost(request, clientSampling) * turnWeight;

/** The job a submission queues, accepted at `acceptedAt`, its turn cost `cost` (turnCostOf). */
function jobOf(submission: NewTextJob, requestId: string, acceptedAt: number, cost: number): GenerateTextJob {
  const { keyId, model, request, clientSampling = {}, streamReply, budget, turnWeight = 1, batchLine } = submission;
  const job: GenerateTextJob = {
    requestId,
    keyId,
    model,
    request,
    clientSampling,
    acceptedAt,
    ...(streamReply ? { streamReply } : {}),
    ...(budget ? { budget } : {}),
    ...(request.samplingParams.seed === undefined ? { seed: jobSeed() } : {}),
  };
  // A line's turns are its key's batch tenant's, charged at their estimate: the worker's settlement
  // (record-reply.ts) corrects the key's interactive turns only.
  if (batchLine) return { ...job, batchLine: true };
  return {
    ...job,
    turnCost: cost,
    ...(turnWeight === 1 ? {} : { turnWeight }),
  };
}

/** Accepting and cancelling generations. */
export class TextJobs {
  constructor(
    private readonly statuses: StatusStore,
    private readonly queue: Queue<GenerateTextJob>,
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    /** Confirms, on the connection that wrote both, that replicas hold the record and the job. */
    private readonly replicated: ReplicaWait,
    /** BullMQ's connection: the jobs added in one tick leave in one write (corkForThisTick). */
    private readonly queueRedis: RedisClient,
    /** Where a job cancelled before it ran gives back what it held of its key's usage budgets. */
    private readonly budgets?: UsageBudgetLedger,
  ) {}

  /**
   * Record first (StatusStore.create: its turn, its job's priority, or refused at the in-flight cap,
   * writing nothing), then the job, so no worker finds its record missing. Should either fail, the
   * record is closed at once (closeUnqueued); a job queued anyway finds it closed and is skipped.
   * With REDIS_WAIT_REPLICAS the id is returned only once replicas confirm the job (written after
   * the record on the one replication stream, so both).
   */
  async submit(submission: NewTextJob): Promise<{ requestId: string; acceptedAt: number }> {
    const { keyId, model, request, inFlightCap, batchLine } = submission;
    const cost = turnCostOf(submission);
    const job = jobOf(submission, submission.requestId ?? randomUUID(), Date.now(), cost);
    const { requestId } = job;
    const webhook = request.webhook === undefined ? undefined : { url: request.webhook, events: request.webhookEvents };
    const turns = batchLine ? batchTurns(keyId, cost) : { tenant: keyId, cost };
    const cap = batchLine ? null : inFlightCap;
    const joining = this.statuses.create(
      requestId,
      keyId,
      model,
      job.acceptedAt,
      webhook,
      cap,
      turns.cost,
      turns.tenant,
    );
    const joined = await joining.catch((error: unknown) => this.closeUnqueued(requestId, error));
    if (!joined.joined) throw inFlightCapReached(inFlightCap, joined.averageJobSeconds);
    const { maxQueueMs } = request;
    if (batchLine)
      await this.fileBatchLine(requestId, batchLine).catch((error: unknown) => this.closeUnqueued(requestId, error));
    else if (maxQueueMs !== undefined)
      await this.fileQueueDeadline(requestId, job.acceptedAt, maxQueueMs).catch((error: unknown) =>
        this.closeUnqueued(requestId, error),
      );
    corkForThisTick(this.queueRedis);
    await this.queue
      .add(JOB_NAMES.generateText, job, { jobId: requestId, priority: joined.turn })
      .catch((error: unknown) => this.closeUnqueued(requestId, error));
    await this.replicated.confirm();
    return { requestId, acceptedAt: job.acceptedAt };
  }

  /** Whether BullMQ holds a job of this id (waiting, running, or finished and not yet trimmed). */
  async jobExists(requestId: string): Promise<boolean> {
    return (await this.queueRedis.exists(this.keys.bullJob(this.queue.name, requestId))) === 1;
  }

  /**
   * Queues again the job of a request whose record was written, and still waits in the queue, but
   * whose job never reached BullMQ (its submitter killed between the two, or Redis refusing both the
   * job and the record's closing): the job its submit would have added, at the turn it joined with,
   * holding what it holds (`budget`); a batch line's tag and queue deadline filed again (idempotent).
   * BullMQ adds nothing for an id it still holds; a job that reached it anyway finds its record
   * started or final and is skipped by its worker, so nothing runs twice.
   */
  async requeueLost(submission: NewTextJob & { requestId: string }, acceptedAt: number, turn: number): Promise<void> {
    const job = jobOf(submission, submission.requestId, acceptedAt, turnCostOf(submission));
    if (submission.batchLine) await this.fileBatchLine(job.requestId, submission.batchLine);
    await this.queue.add(JOB_NAMES.generateText, job, { jobId: job.requestId, priority: turn });
  }

  /**
   * A request with a queue deadline: refused now (429 QUEUE_TIMEOUT, nothing queued, its record
   * closed without a webhook delivery) when the queue's own estimate says it would start after the
   * deadline; else the deadline is filed for the workers' sweep (queue-deadline.sweeper.ts). With no
   * estimate (nothing measured yet, no live worker) it is accepted: the sweep still ends it in time.
   */
  private async fileQueueDeadline(requestId: string, acceptedAt: number, maxQueueMs: number): Promise<void> {
    const startsIn = await this.statuses.startEstimateSeconds(requestId);
    if (startsIn !== null && startsIn * 1000 > maxQueueMs) {
      await this.statuses.expireUnstarted(requestId, `not queued: ${QUEUE_TIMEOUT_ERROR} (refused at submit)`, true);
      const message = `the queue's estimate is that this request would start in about ${Math.ceil(startsIn)} s, after its maxQueueMs of ${maxQueueMs} ms: nothing was queued`;
      const retryAfter = Math.max(1, Math.ceil(startsIn - maxQueueMs / 1000));
      throw new ApiError("QUEUE_TIMEOUT", message, undefined, retryAfter, false);
    }
    await this.redis.zadd(this.keys.textQueueDeadlines(), acceptedAt + maxQueueMs, requestId);
  }

  /** A batch line's record names its batch; its queue deadline is its batch's window (the sweep ends it unstarted). */
  private async fileBatchLine(requestId: string, line: { ref: string; queueDeadline: number }): Promise<void> {
    await Promise.all([
      this.statuses.tagBatchLine(requestId, line.ref),
      this.redis.zadd(this.keys.textQueueDeadlines(), line.queueDeadline, requestId),
    ]);
  }

  /**
   * A submit that failed (its client gets the error, never this id): whatever part of its record was
   * written is closed, so it neither runs (a worker skips a record that is not processing), nor
   * counts in a queue position, nor stays `processing` in its key's listing. If even that fails, the
   * lost-job sweep closes it.
   */
  private async closeUnqueued(requestId: string, error: unknown): Promise<never> {
    await this.statuses.fail(requestId, NOT_QUEUED_ERROR, "not_queued").catch(() => undefined);
    throw error;
  }

  /**
   * Marks the record `error: cancelled` (only if still processing), removes a waiting job, and tells
   * every worker to abort it if one is running it. Returns false when the job had already finished.
   */
  async cancel(requestId: string): Promise<boolean> {
    if (!(await this.statuses.fail(requestId, CANCELLED_ERROR, "cancelled"))) return false;
    await this.redis.publish(this.keys.cancelChannel(), requestId);
    // An active job is locked and stays; its worker aborts it on the message above (and its end
    // settles its budget hold). The record left the queue-position set when it turned final,
    // whether or not this removal happens.
    const job = this.budgets ? await this.queue.getJob(requestId).catch(() => undefined) : undefined;
    const removed = await this.queue.remove(requestId).catch(() => 0);
    if (removed === 1 && job?.data.budget) await this.releaseHold(job.data).catch(() => undefined);
    return true;
  }

  /** A job removed before it ran used nothing: its hold is given back (once, whoever else settles it). */
  private async releaseHold({ keyId, requestId, budget }: GenerateTextJob): Promise<void> {
    if (!budget || !this.budgets) return;
    await this.budgets.settle({ keyId, requestId, day: budget.day, month: budget.month, tokens: 0, audioMs: 0 });
  }
}
