import { QUEUES, speakReplyJobId } from "@chorus/contracts";
import type { UsageBudgetLedger } from "@chorus/platform/budgets";
import type { Logger } from "@chorus/platform/logger";
import type { RedisKeys, RedisClient } from "@chorus/platform/redis";
import type { StatusStore } from "@chorus/platform/scheduler";
import { failureMessage } from "./failure-message.js";
import { FleetInterval } from "./fleet-interval.js";

/** The `error` of a record whose job left BullMQ without its answer being written. */
export const LOST_ERROR = "lost: the job disappeared from the queue";

export interface LostJobSweeperOptions {
  connection: RedisClient;
  keys: RedisKeys;
  statuses: StatusStore;
  logger: Logger;
  /** Called once per record this sweep turned into LOST_ERROR (the worker counts it in jobs_total). */
  onLost: () => void;
  /** Where a record this sweep closes gives back its budget hold (absent: not given back). */
  budgets?: UsageBudgetLedger;
  /** How often a sweep is tried; one worker of the fleet wins each (default 30 s). */
  intervalMs?: number;
  /** Records younger than this are left alone: their job may still be on its way (default 60 s). */
  graceMs?: number;
}

export interface SweepResult {
  /** Records turned into LOST_ERROR. */
  lost: number;
  /** Records given the failure their worker could not write. */
  failed: number;
}

/** What a sweep learns of one unfinished record and its BullMQ job (a pipelined read). */
interface Observed {
  status: string | null;
  /** The API key that sent it (null: the record is gone). */
  owner: string | null;
  jobExists: boolean;
  finishedOn: string | null;
  failedReason: string | null;
}

const PAGE = 500;

/**
 * Finds status records that still say `processing` although their job is gone from BullMQ
 * (removed, obliterated) or finished without the record being told (its final write failed through
 * every retry), and closes them, so that no client polls a record that can never change. Every
 * write is the one-way FINISH, so a sweep racing a worker's own final write cannot overwrite it.
 */
export class LostJobSweeper {
  private readonly graceMs: number;
  private readonly fleet: FleetInterval;

  constructor(private readonly options: LostJobSweeperOptions) {
    const { connection, keys, logger, intervalMs = 30_000 } = options;
    this.graceMs = options.graceMs ?? 60_000;
    const lockKey = keys.lostJobSweepLock();
    this.fleet = new FleetInterval({ connection, lockKey, intervalMs, logger, what: "lost-job sweep" });
  }

  start(): void {
    this.fleet.start(() => this.sweep(Date.now()));
  }

  stop(): void {
    this.fleet.stop();
  }

  /** One sweep, if no other process holds this interval's lock (then null): the fleet sweeps once an interval. */
  async sweepOnce(now = Date.now()): Promise<SweepResult | null> {
    return this.fleet.ifWon(() => this.sweep(now));
  }

  private async sweep(now: number): Promise<SweepResult> {
    const result: SweepResult = { lost: 0, failed: 0 };
    // Closed records leave the set, so a page's offset moves on only past the records left open;
    // one closed by someone else meanwhile may shift a record past this sweep, not past the next.
    for (let offset = 0; ;) {
      const ids = await this.options.statuses.unfinished(now - this.graceMs, offset, PAGE);
      if (ids.length === 0) return result;
      let kept = 0;
      for (const [i, observed] of (await this.observe(ids)).entries()) {
        const closed = await this.close(ids[i] as string, observed, result);
        if (!closed) kept++;
      }
      offset += kept;
      if (ids.length < PAGE) return result;
    }
  }

  /**
   * Sent all at once, not as a pipeline: a record and its job sit in different slots of a Redis Cluster.
   * The job that ends a request is its spoken reply's where there is one (`speak`), else its text job.
   */
  private async observe(ids: string[]): Promise<Observed[]> {
    const { connection, keys } = this.options;
    const jobOf = async (job: string) => {
      const [exists, [finishedOn, failedReason]] = await Promise.all([
        connection.exists(job),
        connection.hmget(job, "finishedOn", "failedReason"),
      ]);
      return { jobExists: exists === 1, finishedOn: finishedOn ?? null, failedReason: failedReason ?? null };
    };
    return Promise.all(
      ids.map(async (id) => {
        const [[status, owner], text, spoken] = await Promise.all([
          connection.hmget(keys.status(id), "status", "owner"),
          jobOf(keys.bullJob(QUEUES.text, id)),
          jobOf(keys.bullJob(QUEUES.speech, speakReplyJobId(id))),
        ]);
        return { status: status ?? null, owner: owner ?? null, ...(spoken.jobExists ? spoken : text) };
      }),
    );
  }

  /** Returns false for a record left open (its job is still queued, waiting for a retry or running). */
  private async close(id: string, seen: Observed, result: SweepResult): Promise<boolean> {
    const { statuses, logger } = this.options;
    // Already final or expired: FINISH writes nothing and only takes the id out of the sets.
    if (seen.status !== "processing") {
      await statuses.fail(id, LOST_ERROR, "lost");
      return true;
    }
    if (seen.jobExists && !seen.finishedOn) return false;
    if (seen.jobExists && seen.failedReason !== null) {
      if (await statuses.fail(id, failureMessage(seen.failedReason), "generation_failed")) {
        await this.releaseHold(id, seen);
        result.failed++;
        logger.warn("recorded a failure its worker could not write", { jobId: id });
      }
      return true;
    }
    if (await statuses.fail(id, LOST_ERROR, "lost")) {
      await this.releaseHold(id, seen);
      result.lost++;
      this.options.onLost();
      logger.warn("job lost: its status record said processing but the job is gone", {
        jobId: id,
        jobExists: seen.jobExists,
      });
    }
    return true;
  }

  /** A record this sweep closed: its job will not settle, so its budget hold is given back (nothing used). */
  private async releaseHold(id: string, seen: Observed): Promise<void> {
    if (!this.options.budgets || !seen.owner) return;
    await this.options.budgets.release(seen.owner, id).catch((error: unknown) => {
      this.options.logger.warn("could not give back a lost job's budget hold", { jobId: id, error: String(error) });
    });
  }
}
