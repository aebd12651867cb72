import { randomUUID } from "node:crypto";
import { QUEUE_TIMEOUT_ERROR } from "@chorus/contracts";
import type { Logger } from "@chorus/platform/logger";
import type { RedisClient, RedisKeys } from "@chorus/platform/redis";
import type { StatusStore } from "@chorus/platform/scheduler";

export interface QueueDeadlineSweeperOptions {
  connection: RedisClient;
  keys: RedisKeys;
  statuses: StatusStore;
  logger: Logger;
  /** Takes the job of a request whose deadline passed out of the text queue, so it never runs. */
  removeJob: (requestId: string) => Promise<unknown>;
  /** Called once per request this sweep ended (the worker counts it in jobs_total). */
  onExpired: () => void;
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
  private readonly intervalMs: number;
  private readonly owner = randomUUID();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: QueueDeadlineSweeperOptions) {
    this.intervalMs = options.intervalMs ?? 1000;
  }

  start(): void {
    const tick = () =>
      void this.sweepOnce().catch((error: unknown) =>
        this.options.logger.warn("queue-deadline sweep failed", { error: String(error) }),
      );
    this.timer = setInterval(tick, this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One sweep, if no other process holds this interval's lock (then null): the number of requests it ended. */
  async sweepOnce(now = Date.now()): Promise<number | null> {
    const { connection, keys } = this.options;
    const won = await connection.set(keys.queueDeadlineSweepLock(), this.owner, "PX", this.intervalMs, "NX");
    if (won !== "OK") return null;
    let expired = 0;
    for (;;) {
      const due = await connection.zrangebyscore(keys.textQueueDeadlines(), "-inf", now, "LIMIT", 0, PAGE);
      for (const requestId of due) if (await this.expire(requestId)) expired++;
      if (due.length > 0) await connection.zrem(keys.textQueueDeadlines(), ...due);
      if (due.length < PAGE) return expired;
    }
  }

  private async expire(requestId: string): Promise<boolean> {
    if (!(await this.options.statuses.expireUnstarted(requestId, QUEUE_TIMEOUT_ERROR))) return false;
    await this.options.removeJob(requestId).catch(() => 0);
    this.options.onExpired();
    this.options.logger.info("queue deadline passed before any worker started the request", { jobId: requestId });
    return true;
  }
}
