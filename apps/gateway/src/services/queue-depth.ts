import type { RedisKeys } from "@chorus/platform";
import type { Redis } from "ioredis";

/**
 * Jobs waiting in the text queue, from the ticket counters (accepted - left the queue), refreshed in
 * the background: backpressure costs the submit path nothing. The figure may be up to one interval
 * old, which is fine for shedding load.
 */
export class QueueDepth {
  private waiting: number | null = null;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly intervalMs = 500,
  ) {}

  start(): void {
    const refresh = () => void this.refresh().catch(() => undefined);
    refresh();
    this.timer = setInterval(refresh, this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Null until the first reading (and while Redis is away: then submits fail anyway). */
  get current(): number | null {
    return this.waiting;
  }

  async refresh(): Promise<number> {
    const [accepted, left] = await this.redis.mget(this.keys.textJobsAccepted(), this.keys.textJobsLeftQueue());
    this.waiting = Math.max(Number(accepted ?? 0) - Number(left ?? 0), 0);
    return this.waiting;
  }
}
