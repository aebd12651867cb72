import { QUEUES } from "@chorus/contracts";
import { Cluster, type Redis } from "ioredis";
import type { Logger } from "../logger.js";
import type { RedisClient } from "./connection.js";
import { redisKeys, type RedisKeys } from "./redis-keys.js";

/** The layout this code writes: 2 since keys carry Redis Cluster hash tags (issue 17). Kept in `<prefix>:key-layout`. */
export const KEY_LAYOUT = "2";

/**
 * What to do when a key of layout 1 has a namesake of layout 2 already (a process of this release
 * wrote it first): keep the new one's fields and add the old one's others, add counters up, unite
 * sorted sets, keep the larger counter, or keep the new one.
 */
type Merge = "fields" | "sums" | "union" | "larger" | "newer";
interface Move {
  to: string;
  merge: Merge;
  /** A status record: once moved, a `processing` one is put in the unfinished set (the sweep's). */
  record?: string;
}

/** Layout 1's one-of-a-kind keys (`<prefix>:<name>`), and where each goes. */
function singleMoves(keys: RedisKeys): Record<string, Move> {
  return {
    apikeys: { to: keys.apiKeyIndex(), merge: "fields" },
    "apikey-names": { to: keys.apiKeyNames(), merge: "fields" },
    "text-requests:unfinished": { to: keys.textRequestsUnfinished(), merge: "union" },
    "queue-tickets:text:accepted": { to: keys.textJobTickets(), merge: "larger" },
    "stats:text-jobs": { to: keys.textJobStats(), merge: "newer" },
  };
}

/** Layout 1's families (`<prefix>:<family>:<rest>`), and where a member goes (null: not one of layout 1). */
function familyMoves(keys: RedisKeys): [string, (rest: string) => Move | null][] {
  const split = (rest: string) => {
    const at = rest.indexOf(":"); // key ids (key_<hex>) have no colon; what follows may
    return at > 0 ? [rest.slice(0, at), rest.slice(at + 1)] : null;
  };
  return [
    ["apikey", (hash) => ({ to: keys.apiKeyBySecretHash(hash), merge: "newer" })],
    ["status", (id) => ({ to: keys.status(id), merge: "newer", record: id })],
    ["text-requests:by-key", (keyId) => ({ to: keys.textRequestsOfApiKey(keyId), merge: "union" })],
    ["usage", (rest) => (split(rest) ? { to: keys.apiKeyUsage(...(split(rest) as [string, string])), merge: "sums" } : null)],
    ["idempotency", (rest) => (split(rest) ? { to: keys.idempotency(...(split(rest) as [string, string])), merge: "newer" } : null)],
    ["audio", (id) => ({ to: keys.audio(id), merge: "newer" })],
    ["audio-meta", (id) => ({ to: keys.audioMeta(id), merge: "newer" })],
  ];
}

/** Where a key of layout 1 goes, or null for a key that is not one (layout 2's carry a tag). */
function moveOf(prefix: string, keys: RedisKeys, key: string): Move | null {
  const name = key.slice(prefix.length + 1);
  if (name.includes("{")) return null;
  const single = singleMoves(keys)[name];
  if (single) return single;
  for (const [family, moveFor] of familyMoves(keys)) {
    if (name.startsWith(`${family}:`) && name.length > family.length + 1) return moveFor(name.slice(family.length + 1));
  }
  return null;
}

async function mergeInto(redis: Redis, from: string, { to, merge }: Move): Promise<void> {
  if (merge === "fields") await Promise.all(Object.entries(await redis.hgetall(from)).map(([field, value]) => redis.hsetnx(to, field, value)));
  if (merge === "sums") await Promise.all(Object.entries(await redis.hgetall(from)).map(([field, value]) => redis.hincrby(to, field, Number(value))));
  if (merge === "union") {
    const ttl = await redis.pttl(to);
    await redis.zunionstore(to, 2, to, from, "AGGREGATE", "MIN");
    if (ttl > 0) await redis.pexpire(to, ttl);
  }
  if (merge === "larger") {
    const [old, now] = await redis.mget(from, to);
    if (Number(old) > Number(now)) await redis.set(to, old as string);
  }
  await redis.del(from);
}

/** Renames (RENAMENX: a key another process moved meanwhile is gone, no error) or merges into today's namesake. */
async function moveKey(redis: Redis, from: string, move: Move, keys: RedisKeys): Promise<number> {
  const renamed = await redis.renamenx(from, move.to).catch((error: Error) => {
    if (/no such key/i.test(error.message)) return -1;
    throw error;
  });
  if (renamed === -1) return 0;
  if (renamed === 0) await mergeInto(redis, from, move);
  if (move.record !== undefined) {
    const [status, createdAt] = await redis.hmget(move.to, "status", "createdAt");
    if (status === "processing") await redis.zadd(keys.textRequestsUnfinished(), "NX", Number(createdAt ?? Date.now()), move.record);
  }
  return 1;
}

/**
 * Moves what an earlier release wrote (layout 1, keys without hash tags) to today's names, once per
 * deployment, so an upgrade keeps its API keys, usage, records (and spoken replies), listings and
 * idempotency keys: one SCAN of the prefix, each page's keys moved together. Safe to run from several
 * processes at once (RENAMENX; a key that has a namesake of this release already is merged into it).
 * A `processing` record is put in the unfinished set, so the sweep closes it if its job stayed in the
 * old queue (BullMQ's keys are not moved: drain before upgrading; a warning says when jobs are left).
 * A Redis Cluster is new to this release: nothing there to move. Never throws: a failure is logged and
 * the next start tries again. Returns how many keys moved.
 */
export async function migrateKeyLayout(redis: RedisClient, prefix: string, logger: Logger): Promise<number> {
  const marker = `${prefix}:key-layout`;
  if (redis instanceof Cluster) return 0;
  const keys = redisKeys(prefix);
  let moved = 0;
  try {
    if ((await redis.get(marker)) === KEY_LAYOUT) return 0;
    let cursor = "0";
    do {
      const [next, found] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
      const moves = found.map((key) => [key, moveOf(prefix, keys, key)] as const).filter((entry): entry is [string, Move] => entry[1] !== null);
      for (const count of await Promise.all(moves.map(([key, move]) => moveKey(redis, key, move, keys)))) moved += count;
      cursor = next;
    } while (cursor !== "0");
    // Its members were the old records' keys: nobody waits behind them now.
    await redis.del(`${prefix}:queue-tickets:text:waiting`);
    const oldJobs = (await redis.llen(`${prefix}:bull:${QUEUES.text}:wait`)) + (await redis.llen(`${prefix}:bull:${QUEUES.text}:active`));
    if (oldJobs > 0) logger.warn("jobs of an earlier release are still in its queue, which this release does not read: their records will close as lost", { jobs: oldJobs });
    await redis.set(marker, KEY_LAYOUT);
    if (moved > 0) logger.info("moved Redis keys to the layout with hash tags", { moved, layout: KEY_LAYOUT });
  } catch (error) {
    logger.warn("could not move Redis keys to the current layout; the next start tries again", { moved, error: String(error) });
  }
  return moved;
}
