import type { RedisClient } from "./connection.js";
import type { RedisKeys } from "./redis-keys.js";

/**
 * The worker-slots hash (`keys.workerSlots()`): one field per live worker, valued
 * `<slots>:<expiry, ms since epoch>`, since hash fields cannot expire. The worker writes it
 * (WorkerPresence), the status script reads it for ETAs, and `npm start` reads it to see whether
 * another deployment's workers already serve a prefix.
 */
export function workerSlotsEntry(slots: number, expiresAtMs: number): string {
  return `${slots}:${expiresAtMs}`;
}

export function isExpiredWorkerSlotsEntry(value: string, nowMs: number): boolean {
  return Number(value.split(":")[1]) < nowMs;
}

/** How many workers announce themselves under this prefix now (entries not yet expired). */
export async function liveWorkerCount(redis: RedisClient, keys: Pick<RedisKeys, "workerSlots">, nowMs = Date.now()): Promise<number> {
  const entries = await redis.hgetall(keys.workerSlots());
  return Object.values(entries).filter((value) => !isExpiredWorkerSlotsEntry(value, nowMs)).length;
}
