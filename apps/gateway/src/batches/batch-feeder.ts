import { randomUUID } from "node:crypto";
import {
  ApiError,
  BATCH_LINE_ERRORS,
  grants,
  isModelId,
  type BudgetHold,
  type ChatLimits,
  type ModelId,
} from "@chorus/contracts";
import type { ApiKeyRecord, ApiKeyStore } from "@chorus/platform/api-keys";
import { batchLineRef, batchLineRequestId, type BatchStore, type StoredBatch } from "@chorus/platform/batches";
import type { FileStore } from "@chorus/platform/files";
import type { Logger } from "@chorus/platform/logger";
import { TIER_TURN_WEIGHT, type ModelFeatures, type StatusStore } from "@chorus/platform/scheduler";
import { textAsk } from "../admission/budget-estimates.js";
import { OPENAI_FEATURE_FIELDS, refuseWhatModelLacks } from "../admission/engine-features.js";
import type { UsageBudgets } from "../admission/usage-budgets.js";
import type { TextJobs } from "../services/text-jobs.service.js";
import { writeBatchResults } from "./batch-results.js";
import { mapBatchBody, type BatchLine } from "./read-batch-lines.js";

export interface BatchFeederDeps {
  batches: BatchStore;
  files: FileStore;
  statuses: StatusStore;
  jobs: TextJobs;
  apiKeys: Pick<ApiKeyStore, "get">;
  usageBudgets: UsageBudgets;
  modelFeatures: ModelFeatures;
  chatLimits: ChatLimits;
  /** Lines of one batch queued or running at once (BATCH_WINDOW). */
  window: number;
  logger: Logger;
  /** How often every batch not yet final is looked at (default 1 s). */
  intervalMs?: number;
  /**
   * Whether the batches' Redis connection can take commands now: the loop skips its ticks until it
   * can (starting, reconnecting), which the connection's own error events already report.
   */
  redisReady?: () => boolean;
}

/** A feed step holds its batch this long at most: a feeder killed mid-step holds it no longer. */
const LOCK_MS = 30_000;
/**
 * A fed line's record waiting this long is checked for its job at each sweep: younger ones are nearly
 * always just queued, and the check costs a read of the queue.
 */
const REQUEUE_AFTER_MS = 5_000;

/** A line that cannot run, told in the error file (code and message), counted as failed at once. */
class LineRefused extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Feeds batches' lines to the text queue as ordinary requests of their key, a few at a time
 * (`window`), and finishes batches (files, final status). Any gateway may do it, several at once:
 * each step holds its batch's lock, lines are claimed, with their text, by one script (claim-batch-lines-3.lua) and a
 * line's request and job ids are derived from its batch and line, so a step repeated after a kill
 * queues nothing twice. A step runs when a line ends (the batch-feed channel) and once a second; only
 * the step of each second sweeps the lines fed earlier (a killed feeder's claims, ends whose count was
 * lost), so a line's end costs its batch one claim and the next line's queueing, not a read of every
 * line in the window.
 */
export class BatchFeeder {
  private readonly owner = randomUUID();
  private timer: NodeJS.Timeout | undefined;
  private readonly running = new Map<string, Promise<void>>();
  /** Steps asked for while one ran, and whether any of them sweeps. */
  private readonly again = new Map<string, boolean>();

  constructor(private readonly deps: BatchFeederDeps) {}

  start(): void {
    const loop = () => {
      if (this.deps.redisReady && !this.deps.redisReady()) return;
      void this.stepAll().catch((e: unknown) => this.warn("batch loop failed", e));
    };
    this.timer = setInterval(loop, this.deps.intervalMs ?? 1000);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  async stepAll(): Promise<void> {
    for (const id of await this.deps.batches.active()) await this.step(id, true);
  }

  /**
   * One step of one batch. A step asked for while one of the batch's is under way here runs once
   * more after it (a line that ended meanwhile is topped up at once); one under way in another
   * process holds the lock, and the loop comes back within a second.
   */
  step(batchId: string, sweep = false): Promise<void> {
    const under = this.running.get(batchId);
    if (under) {
      this.again.set(batchId, sweep || this.again.get(batchId) === true);
      return under;
    }
    const run = this.lockedStep(batchId, sweep)
      .catch((e: unknown) => this.warn("batch step failed", e, batchId))
      .finally(() => {
        this.running.delete(batchId);
        const again = this.again.get(batchId);
        this.again.delete(batchId);
        if (again !== undefined) void this.step(batchId, again);
      });
    this.running.set(batchId, run);
    return run;
  }

  private async lockedStep(batchId: string, sweep: boolean): Promise<void> {
    const { batches } = this.deps;
    // Sent together on one connection, so run in this order: the batch is read once the lock is held, in the same
    // round trip. The read is awaited only under the lock, so a failed read still lets the lock go.
    const locking = batches.lock(batchId, this.owner, LOCK_MS);
    const reading = batches.get(batchId);
    reading.catch(() => undefined);
    if (!(await locking)) return;
    try {
      const batch = await reading;
      if (batch) await this.advance(batch, sweep);
    } finally {
      await batches.unlock(batchId, this.owner);
    }
  }

  private async advance(batch: StoredBatch, sweep: boolean): Promise<void> {
    const { batches } = this.deps;
    const now = Math.floor(Date.now() / 1000);
    let counted = false;
    if (batch.status === "in_progress" && !batch.stopFeeding && now >= (batch.times.expires_at ?? Infinity)) {
      await batches.stopFeeding(batch.id);
      batch.stopFeeding = true;
    }
    if (batch.status === "in_progress" && !batch.stopFeeding) counted = await this.feed(batch, sweep);
    else if (batch.status === "in_progress") await this.countEnded(batch);
    if (batch.status === "cancelling") await this.cancelFed(batch);
    // Read again only where this step may have ended it (a sweep may count ends): a line's end counted elsewhere
    // asks for a step of its own.
    const changed = sweep || counted || batch.status !== "in_progress" || batch.stopFeeding;
    const fresh = changed ? await batches.get(batch.id) : batch;
    if (fresh) await this.finishWhenDone(fresh);
  }

  /**
   * Sweeping, queues the lines claimed earlier and not yet queued (a killed feeder's) and counts fed
   * lines whose record is final but not counted (their count lost to a Redis outage or a kill); then
   * claims and queues more. True when it counted a line's end (a line refused).
   */
  private async feed(batch: StoredBatch, sweep: boolean): Promise<boolean> {
    const { batches } = this.deps;
    const key = await this.deps.apiKeys.get(batch.keyId);
    let counted = false;
    const earlier = sweep ? await batches.fed(batch.id) : [];
    for (const index of earlier)
      counted = (await this.feedLine(batch, key, index, () => batches.line(batch.id, index), true)) || counted;
    // A claimed line's text came with the claim. Its record is still looked for: a claim lost to a failover (on a
    // Cluster the batch and the line's record live on different nodes) gives the same line again.
    for (const { index, text } of await batches.claim(batch.id, this.deps.window))
      counted = (await this.feedLine(batch, key, index, () => text)) || counted;
    return counted;
  }

  /**
   * Queues the line, unless it has a record already; true when it was refused (and counted failed).
   * Sweeping, a line whose record has waited REQUEUE_AFTER_MS and whose job is not in BullMQ (its
   * feeder killed between the two) has its job queued again.
   */
  private async feedLine(
    batch: StoredBatch,
    key: ApiKeyRecord | null,
    index: number,
    text: () => string | null | Promise<string | null>,
    sweeping = false,
  ): Promise<boolean> {
    const stored = await this.deps.statuses.get(batchLineRequestId(batch.id, index));
    if (!stored) return this.queueLine(batch, key, index, await text());
    if (stored.record.status !== "processing") await this.countEnd(batch, index, stored.record.status);
    else if (sweeping && stored.startedAt === undefined && Date.now() - stored.createdAt >= REQUEUE_AFTER_MS)
      await this.requeueIfLost(batch, key, index, text, stored.createdAt);
    return false;
  }

  /**
   * The job of a line whose record waits in the queue without it, as its feed would have queued it
   * (same request, turn, budget hold and queue deadline). Checked in the order of their cost: still in
   * the waiting set (not started), then no job of its id in BullMQ; only then is the line read again.
   * A line that cannot be read as a request any more (its key revoked, its model gone) is left to the
   * workers' lost-job sweep, which fails it.
   */
  private async requeueIfLost(
    batch: StoredBatch,
    key: ApiKeyRecord | null,
    index: number,
    text: () => string | null | Promise<string | null>,
    acceptedAt: number,
  ): Promise<void> {
    const requestId = batchLineRequestId(batch.id, index);
    if (!key || key.revoked) return;
    const turn = await this.deps.statuses.waitingTurn(requestId);
    if (turn === null || (await this.deps.jobs.jobExists(requestId))) return;
    const stored = await text();
    if (stored === null) return;
    try {
      const line = JSON.parse(stored) as BatchLine;
      const model = lineModel(key, line.body.model);
      const mapped = await this.read(batch, model, line);
      const budget = await this.deps.usageBudgets.heldFor(key, requestId);
      await this.deps.jobs.requeueLost(
        this.lineJob(batch, key, index, model, mapped, budget, acceptedAt),
        acceptedAt,
        turn,
      );
      this.deps.logger.warn("batch line queued again: its record was written but its job was lost", { requestId });
    } catch (error) {
      if (!(error instanceof LineRefused)) throw error;
    }
  }

  /** Queues the line (its request as stored; null: the input is gone); true when refused (and counted failed). */
  private async queueLine(
    batch: StoredBatch,
    key: ApiKeyRecord | null,
    index: number,
    text: string | null,
  ): Promise<boolean> {
    if (text === null) return false;
    try {
      await this.submit(batch, key, index, JSON.parse(text) as BatchLine);
      return false;
    } catch (error) {
      if (!(error instanceof LineRefused)) throw error;
      const kept = JSON.stringify({ code: error.code, message: error.message });
      await this.deps.batches.countLine(batch.id, index, false, kept);
      return true;
    }
  }

  /** True when the line has a record (queued, running or ended); an ended one is counted (idempotent). */
  private async countIfEnded(batch: StoredBatch, index: number): Promise<boolean> {
    const stored = await this.deps.statuses.get(batchLineRequestId(batch.id, index));
    if (!stored) return false;
    await this.countEnd(batch, index, stored.record.status);
    return true;
  }

  /** A line whose record is final is counted (idempotent); one still processing is not. */
  private async countEnd(batch: StoredBatch, index: number, status: string): Promise<void> {
    if (status !== "processing") await this.deps.batches.countLine(batch.id, index, status === "completed");
  }

  /** The line as a request of its key: its scopes, what the model's engine honours and its usage budgets, now. */
  private async submit(batch: StoredBatch, key: ApiKeyRecord | null, index: number, line: BatchLine) {
    if (!key || key.revoked) throw new LineRefused(BATCH_LINE_ERRORS.forbidden, "the batch's API key is revoked");
    const model = lineModel(key, line.body.model);
    const requestId = batchLineRequestId(batch.id, index);
    const mapped = await this.read(batch, model, line);
    const features = await this.deps.modelFeatures.of(model);
    const ask = textAsk(mapped.request, mapped.clientSampling, features?.tokenBounds);
    const budget = await this.deps.usageBudgets
      .hold(key, requestId, ask, () => undefined)
      .catch((error: unknown) => {
        if (error instanceof ApiError && error.code === "BUDGET_EXCEEDED")
          throw new LineRefused(BATCH_LINE_ERRORS.quota, error.message);
        throw error;
      });
    await this.deps.jobs.submit(this.lineJob(batch, key, index, model, mapped, budget, Date.now()));
  }

  /** The line's job as its key's request, accepted at `acceptedAt`, holding `budget`. */
  private lineJob(
    batch: StoredBatch,
    key: ApiKeyRecord,
    index: number,
    model: ModelId,
    mapped: ReturnType<typeof mapBatchBody>,
    budget: BudgetHold | undefined,
    acceptedAt: number,
  ) {
    const queueDeadline = (batch.times.expires_at ?? 0) * 1000;
    // The batch's window is the line's queue deadline: a worker that picks it up later ends it unrun, as the sweep
    // does.
    const maxQueueMs = Math.max(1, queueDeadline - acceptedAt);
    return {
      keyId: key.id,
      model,
      request: { ...mapped.request, maxQueueMs },
      clientSampling: mapped.clientSampling,
      requestId: batchLineRequestId(batch.id, index),
      inFlightCap: 0,
      ...(budget ? { budget } : {}),
      // The key's tier weighs its batch lines too (docs/architecture.md#fair-turns).
      turnWeight: TIER_TURN_WEIGHT[key.priority],
      batchLine: { ref: batchLineRef(batch.id, index), queueDeadline },
    };
  }

  /** The body as the live endpoint reads it (validated at create; a deployment's limits may have changed since). */
  private async read(batch: StoredBatch, model: ModelId, line: BatchLine) {
    try {
      const mapped = mapBatchBody(batch.endpoint, line.body, this.deps.chatLimits);
      await refuseWhatModelLacks(this.deps.modelFeatures, model, { ...mapped, featureFields: OPENAI_FEATURE_FIELDS });
      return mapped;
    } catch (error) {
      if (error instanceof ApiError) throw new LineRefused(BATCH_LINE_ERRORS.invalid, error.message);
      throw error;
    }
  }

  /** A cancelled batch's lines still queued are cancelled (running ones too: their workers stop them). */
  private async cancelFed(batch: StoredBatch): Promise<void> {
    for (const index of await this.deps.batches.fed(batch.id)) {
      const requestId = batchLineRequestId(batch.id, index);
      if (!(await this.deps.statuses.get(requestId))) {
        const kept = JSON.stringify({ code: BATCH_LINE_ERRORS.cancelled, message: "the batch was cancelled" });
        await this.deps.batches.countLine(batch.id, index, false, kept);
      } else if (!(await this.deps.jobs.cancel(requestId))) await this.countIfEnded(batch, index);
    }
  }

  /** Past its window nothing is fed; fed lines whose end was not counted are counted. */
  private async countEnded(batch: StoredBatch): Promise<void> {
    for (const index of await this.deps.batches.fed(batch.id)) await this.countIfEnded(batch, index);
  }

  /**
   * Once no line is fed and none will be (every line ended, or the batch is cancelling or past its
   * window), the batch's files are written and it turns final: `completed`, `cancelled` or `expired`.
   */
  private async finishWhenDone(batch: StoredBatch): Promise<void> {
    const ended = batch.completed + batch.failed >= batch.total;
    const stopped = batch.status === "cancelling" || batch.stopFeeding;
    const done =
      batch.status === "finalizing" || (stopped && (ended || (await this.deps.batches.fed(batch.id)).length === 0));
    if (!done) return;
    const final = batch.status === "cancelling" ? "cancelled" : ended ? "completed" : "expired";
    const files = await writeBatchResults(this.deps, batch, final);
    await this.deps.batches.finish(batch, final, files);
    this.deps.logger.info("batch finished", { batchId: batch.id, status: final, ...files });
  }

  private warn(message: string, error: unknown, batchId?: string): void {
    this.deps.logger.warn(message, { ...(batchId ? { batchId } : {}), error: String(error) });
  }
}

/** The line's model, if the key may use it now (else the line fails in the error file). */
function lineModel(key: ApiKeyRecord, model: unknown): ModelId {
  if (typeof model !== "string" || !isModelId(model))
    throw new LineRefused(BATCH_LINE_ERRORS.model, `unknown model '${String(model)}'`);
  if (!grants(key.scopes, { kind: "text", model }))
    throw new LineRefused(
      BATCH_LINE_ERRORS.forbidden,
      `this API key has no access to model '${model}' (scope text:${model})`,
    );
  return model;
}
