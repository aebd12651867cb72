import type { RedisClient } from "../redis/connection.js";
import { defineLuaScripts, type LuaCommand } from "../redis/lua-scripts.js";
import type { RedisKeys } from "../redis/redis-keys.js";

/**
 * What a queued job's ETA is made of (read by lua/includes/live-slots.lua and job-stats.lua):
 * - `keys.workerSlots()`: a field per live worker, `<slots>:<expiry ms>` (hash fields cannot
 *   expire), refreshed by WorkerPresence; `npm start` reads it to spot another deployment's workers.
 * - `keys.textJobStats()` field `avgJobSeconds`: a moving average of text jobs' times (JobTimeStats).
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
