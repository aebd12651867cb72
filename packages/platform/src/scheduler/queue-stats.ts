import type { RedisClient } from "../redis/connection.js";
import { defineLuaScripts, type LuaCommand } from "../redis/lua-scripts.js";
import type { RedisKeys } from "../redis/redis-keys.js";

/**
 * What a queued job's ETA is made of: the formats the workers write and the status scripts read
 * (src/lua/includes/live-slots.lua and job-stats.lua), their writers and their readers.
 *
 * - The worker-slots hash (`keys.workerSlots()`): one field per live worker, valued
 *   `<slots>:<expiry, ms since epoch>`, since hash fields cannot expire. Each worker refreshes its
 *   own (WorkerPresence); `npm start` reads it to see whether another deployment's workers already
 *   serve a prefix.
 * - The text stats hash (`keys.textJobStats()`), field `avgJobSeconds`: how long text jobs take,
 *   a moving average over every worker's jobs (JobTimeStats, record-job-time-1.lua).
 */
export function workerSlotsEntry(slots: number, expiresAtMs: number): string {
  return `${slots}:${expiresAtMs}`;
}

export function isExpiredWorkerSlotsEntry(value: string, nowMs: number): boolean {
  return Number(value.split(":")[1]) < nowMs;
}

/** How many workers announce themselves under this prefix now (entries not yet expired). */
export async function liveWorkerCount(
  redis: RedisClient,
  keys: Pick<RedisKeys, "workerSlots">,
  nowMs = Date.now(),
): Promise<number> {
  const entries = await redis.hgetall(keys.workerSlots());
  return Object.values(entries).filter((value) => !isExpiredWorkerSlotsEntry(value, nowMs)).length;
}

/** How long text jobs take, averaged over all workers: the gateway's ETA for jobs still queued. */
export class JobTimeStats {
  private readonly scripts: { recordJobTime: LuaCommand };

  constructor(
    redis: RedisClient,
    private readonly key: string,
  ) {
    this.scripts = defineLuaScripts(redis, new URL("../lua/", import.meta.url), {
      recordJobTime: "record-job-time-1.lua",
    });
  }

  /** Adds one job's time (the newest weighs 0.2); a failed write is not retried (the next job's comes). */
  async record(seconds: number): Promise<void> {
    await this.scripts.recordJobTime(this.key, seconds, 0.2).catch(() => undefined);
  }
}
