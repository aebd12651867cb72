import { QUEUE_TIMEOUT_ERROR } from "@chorus/contracts";
import type { UsageBudgetLedger } from "@chorus/platform/budgets";
import type { Logger } from "@chorus/platform/logger";
import type { RedisClient, RedisKeys } from "@chorus/platform/redis";
import type { StatusStore } from "@chorus/platform/scheduler";
import { FleetInterval } from "./fleet-interval.js";

export interface QueueDeadlineSweeperOptions {
  connection: RedisClient;
  keys: RedisKeys;
  statuses: StatusStore;
  logger: Logger;
  /** Takes the job of a request whose deadline passed out of the text queue, so it never runs. */
  removeJob: (requestId: string) => Promise<unknown>;
  /** Called once per request this sweep ended (the worker counts it in jobs_total). */
  onExpired: () => void;
  /** Where the ended request's budget hold is given back (it used nothing); absent: no budgets. */
  budgets?: UsageBudgetLedger;
  /** How often a sweep is tried; one worker of the fleet wins each (default 1 s: a deadline's precision). */
  intervalMs?: number;
}

const PAGE = 200;

/**
 * Ends the requests whose queue deadline (`maxQueueMs`) has passed while no worker has started
 * them, even when every worker is busy: their records turn `error` (`queue_timeout`) and their jobs
 * leave the queue. A request a worker has started is left to run (the record's script decides, so a
 * start and an expiry cannot both win); a worker that picks up a job past its deadline first ends
 * it the same way (generate-text.processor.ts), so the sweep's interval bounds the lateness only of
 * requests no worker reaches.
 */
export class QueueDeadlineSweeper {
  private readonly fleet: FleetInterval;

  constructor(private readonly options: QueueDeadlineSweeperOptions) {
    const { connection, keys, logger, intervalMs = 1000 } = options;
    const lockKey = keys.queueDeadlineSweepLock();
    this.fleet = new FleetInterval({ connection, lockKey, intervalMs, logger, what: "queue-deadline sweep" });
  }

  start(): void {
    this.fleet.start(() => this.sweep(Date.now()));
  }

  stop(): void {
    this.fleet.stop();
  }

  /** One sweep, if no other process holds this interval's lock (then null): the number of requests it ended. */
  async sweepOnce(now = Date.now()): Promise<number | null> {
    return this.fleet.ifWon(() => this.sweep(now));
  }

  private async sweep(now: number): Promise<number> {
    const { connection, keys } = this.options;
    let expired = 0;
    for (;;) {
      const due = await connection.zrangebyscore(keys.textQueueDeadlines(), "-inf", now, "LIMIT", 0, PAGE);
      for (const requestId of due) if (await this.expire(requestId)) expired++;
      if (due.length > 0) await connection.zrem(keys.textQueueDeadlines(), ...due);
      if (due.length < PAGE) return expired;
    }
  }

  private async expire(requestId: string): Promise<boolean> {
    const { connection, keys, statuses, budgets, logger } = this.options;
    if (!(await statuses.expireUnstarted(requestId, QUEUE_TIMEOUT_ERROR))) return false;
    await this.options.removeJob(requestId).catch(() => 0);
    const owner = budgets ? await connection.hget(keys.status(requestId), "owner").catch(() => null) : null;
    if (budgets && owner)
      await budgets.release(owner, requestId).catch((error: unknown) =>
        logger.warn("could not give back the budget hold of a request past its queue deadline", {
          jobId: requestId,
          error: String(error),
        }),
      );
    this.options.onExpired();
    logger.info("queue deadline passed before any worker started the request", { jobId: requestId });
    return true;
  }
}
