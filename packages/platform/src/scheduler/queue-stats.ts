import type { RedisClient } from "../redis/connection.js";
import type { RedisKeys } from "../redis/redis-keys.js";

/**
 * What a queued job's ETA is made of, in one place: the formats the workers write and the status
 * script (QUEUE_PLACE in fair-turns.ts) reads, their writers and their readers.
 *
 * - The worker-slots hash (`keys.workerSlots()`): one field per live worker, valued
 *   `<slots>:<expiry, ms since epoch>`, since hash fields cannot expire. Each worker refreshes its
 *   own (WorkerPresence); `npm start` reads it to see whether another deployment's workers already
 *   serve a prefix.
 * - The text stats hash (`keys.textJobStats()`), field `avgJobSeconds`: how long text jobs take,
 *   a moving average over every worker's jobs (JobTimeStats).
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

/** The text stats hash's field with the average job time, in seconds (three decimals). */
export const AVG_JOB_SECONDS = "avgJobSeconds";

/**
 * Lua: `slots`, the slots of the live workers in the worker-slots hash KEYS[slotsKey], at ARGV[nowArg]
 * (ms). A fragment of the status script, so that the entry format is parsed beside where it is written.
 */
export function liveSlotsLua(slotsKey: number, nowArg: number): string {
  return `
local slots = 0
local workers = redis.call('HGETALL', KEYS[${slotsKey}])
for i = 2, #workers, 2 do
  local concurrency, expires = string.match(workers[i], '^(%d+):(%d+)$')
  if concurrency and tonumber(expires) > tonumber(ARGV[${nowArg}]) then slots = slots + tonumber(concurrency) end
end`;
}

/** KEYS[1] stats hash; ARGV seconds, weight of the newest. A shared moving average, updated atomically. */
const RECORD_JOB_TIME = `
local previous = tonumber(redis.call('HGET', KEYS[1], '${AVG_JOB_SECONDS}'))
local next = previous and (previous + tonumber(ARGV[2]) * (tonumber(ARGV[1]) - previous)) or tonumber(ARGV[1])
redis.call('HSET', KEYS[1], '${AVG_JOB_SECONDS}', string.format('%.3f', next))
return 1
`;

/** How long text jobs take, averaged over all workers: the gateway's ETA for jobs still queued. */
export class JobTimeStats {
  constructor(
    private readonly redis: RedisClient,
    private readonly key: string,
  ) {}

  /** Adds one job's time (the newest weighs 0.2); a failed write is not retried (the next job's comes). */
  async record(seconds: number): Promise<void> {
    await this.redis.eval(RECORD_JOB_TIME, 1, this.key, seconds, 0.2).catch(() => undefined);
  }
}
