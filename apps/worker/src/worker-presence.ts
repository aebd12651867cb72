import { type RedisClient } from "@chorus/platform/redis";
import { isExpiredWorkerSlotsEntry, workerSlotsEntry } from "@chorus/platform/scheduler";
import { randomUUID } from "node:crypto";

const REFRESH_MS = 10_000;
const TTL_MS = 3 * REFRESH_MS;

/**
 * Announces this worker's job slots in one Redis hash (with an expiry time per entry, since hash
 * fields cannot expire), so the gateway can turn a queue position into an ETA. A crashed worker's
 * entry simply stops counting once its time passes; live workers also sweep such stale entries.
 */
export class WorkerPresence {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly key: string,
    private readonly slots: number,
    /** This worker's id, as its routing knows it too. */
    readonly id: string = randomUUID(),
  ) {}

  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh().catch(() => undefined), REFRESH_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.redis.hdel(this.key, this.id).catch(() => undefined);
  }

  private async refresh(): Promise<void> {
    const now = Date.now();
    await this.redis.hset(this.key, this.id, workerSlotsEntry(this.slots, now + TTL_MS));
    const entries = await this.redis.hgetall(this.key);
    const stale = Object.entries(entries)
      .filter(([, value]) => isExpiredWorkerSlotsEntry(value, now))
      .map(([id]) => id);
    if (stale.length > 0) await this.redis.hdel(this.key, ...stale);
  }
}
