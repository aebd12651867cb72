import { Cluster, type Redis } from "ioredis";
import type { Logger } from "../logger.js";
import type { RedisClient } from "./connection.js";
import { redisKeys } from "./redis-keys.js";

/** The layout this code writes: 2 since keys carry Redis Cluster hash tags (issue 17). Kept in `<prefix>:key-layout`. */
export const KEY_LAYOUT = "2";

/** Keys of layout 1 that are one key each, and their names now. */
function singleRenames(prefix: string): [string, string][] {
  const keys = redisKeys(prefix);
  return [
    [`${prefix}:apikeys`, keys.apiKeyIndex()],
    [`${prefix}:apikey-names`, keys.apiKeyNames()],
    [`${prefix}:text-requests:unfinished`, keys.textRequestsUnfinished()],
    [`${prefix}:queue-tickets:text:accepted`, keys.textJobTickets()],
    [`${prefix}:stats:text-jobs`, keys.textJobStats()],
  ];
}

/** Families of layout-1 keys (`<pattern>` + a rest), and the name each rest has now (null: left alone). */
function familyRenames(prefix: string): [string, (rest: string) => string | null][] {
  const keys = redisKeys(prefix);
  const splitOnce = (rest: string, build: (head: string, tail: string) => string) => {
    const at = rest.indexOf(":");
    return at > 0 ? build(rest.slice(0, at), rest.slice(at + 1)) : null;
  };
  return [
    [`${prefix}:apikey:`, (hash) => keys.apiKeyBySecretHash(hash)],
    [`${prefix}:status:`, (id) => keys.status(id)],
    [`${prefix}:text-requests:by-key:`, (keyId) => keys.textRequestsOfApiKey(keyId)],
    [`${prefix}:usage:`, (rest) => splitOnce(rest, (keyId, day) => keys.apiKeyUsage(keyId, day))],
    [`${prefix}:idempotency:`, (rest) => splitOnce(rest, (keyId, idempotencyKey) => keys.idempotency(keyId, idempotencyKey))],
  ];
}

/** RENAMENX, where a key another process has just moved (or that was never there) is no error. */
async function rename(redis: Redis, from: string, to: string): Promise<number> {
  try {
    return await redis.renamenx(from, to);
  } catch (error) {
    if (error instanceof Error && /no such key/i.test(error.message)) return 0;
    throw error;
  }
}

async function renameFamily(redis: Redis, pattern: string, nameNow: (rest: string) => string | null): Promise<number> {
  let moved = 0;
  let cursor = "0";
  do {
    const [next, found] = await redis.scan(cursor, "MATCH", `${pattern}*`, "COUNT", 1000);
    for (const key of found) {
      const rest = key.slice(pattern.length);
      const to = rest.includes("{") ? null : nameNow(rest); // a name with a tag is today's already
      if (to !== null) moved += await rename(redis, key, to);
    }
    cursor = next;
  } while (cursor !== "0");
  return moved;
}

/**
 * Moves what an earlier release wrote (layout 1, keys without hash tags) to today's names, once per
 * deployment, so an upgrade keeps its API keys, usage, records, listings and idempotency keys. Safe
 * to run from several processes at once (RENAMENX; the loser finds the key gone). Jobs still in the
 * old queue are not moved (BullMQ's keys): drain before upgrading; a record whose job stayed behind
 * is closed as lost by the sweep. A Redis Cluster is new to this release: nothing there to move.
 * Returns how many keys moved.
 */
export async function migrateKeyLayout(redis: RedisClient, prefix: string, logger: Logger): Promise<number> {
  const marker = `${prefix}:key-layout`;
  if (redis instanceof Cluster || (await redis.get(marker)) === KEY_LAYOUT) return 0;
  let moved = 0;
  for (const [from, to] of singleRenames(prefix)) moved += await rename(redis, from, to);
  for (const [pattern, nameNow] of familyRenames(prefix)) moved += await renameFamily(redis, pattern, nameNow);
  // Its members were the old records' keys, of jobs in the old queue: nobody waits behind them now.
  await redis.del(`${prefix}:queue-tickets:text:waiting`);
  await redis.set(marker, KEY_LAYOUT);
  if (moved > 0) logger.info("moved Redis keys to the layout with hash tags", { moved, layout: KEY_LAYOUT });
  return moved;
}
