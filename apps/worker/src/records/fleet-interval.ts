import { randomUUID } from "node:crypto";
import type { Logger } from "@chorus/platform/logger";
import type { RedisClient } from "@chorus/platform/redis";

export interface FleetIntervalOptions {
  connection: RedisClient;
  /** The lock the fleet's processes race for each interval (redis-keys.ts). */
  lockKey: string;
  intervalMs: number;
  logger: Logger;
  /** What runs, for the log line of a run that failed. */
  what: string;
}

/**
 * Work the whole fleet of workers does about once per interval, whichever of them is alive: every
 * process tries each interval, and the one that sets the lock runs it. The lock is never released:
 * it lapses after one interval, so two processes cannot run it within one interval however fast
 * either is, and a process that dies mid-run holds nothing past it.
 */
export class FleetInterval {
  private readonly owner = randomUUID();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: FleetIntervalOptions) {}

  /** Tries `run` every interval (the timer does not hold the process open). */
  start(run: () => Promise<unknown>): void {
    const tick = () =>
      void this.ifWon(run).catch((error: unknown) =>
        this.options.logger.warn(`${this.options.what} failed`, { error: String(error) }),
      );
    this.timer = setInterval(tick, this.options.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Runs `run` if this process wins this interval's lock; else null (another process runs it). */
  async ifWon<T>(run: () => Promise<T>): Promise<T | null> {
    const { connection, lockKey, intervalMs } = this.options;
    const won = await connection.set(lockKey, this.owner, "PX", intervalMs, "NX");
    return won === "OK" ? run() : null;
  }
}
