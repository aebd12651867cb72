import { QUEUES } from "@chorus/contracts";
import { Cluster, type Redis } from "ioredis";
import type { RedisClient } from "./connection.js";
import { redisKeys, type RedisKeys } from "./redis-keys.js";

/**
 * The layout this code writes: 2 since keys carry Redis Cluster hash tags. Kept in `<prefix>:key-layout`.
 */
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
    [
      "usage",
      (rest) => (split(rest) ? { to: keys.apiKeyUsage(...(split(rest) as [string, string])), merge: "sums" } : null),
    ],
    [
      "idempotency",
      (rest) => (split(rest) ? { to: keys.idempotency(...(split(rest) as [string, string])), merge: "newer" } : null),
    ],
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
  if (merge === "fields")
    await Promise.all(
      Object.entries(await redis.hgetall(from)).map(([field, value]) => redis.hsetnx(to, field, value)),
    );
  if (merge === "sums")
    await Promise.all(
      Object.entries(await redis.hgetall(from)).map(([field, value]) => redis.hincrby(to, field, Number(value))),
    );
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
    if (status === "processing")
      await redis.zadd(keys.textRequestsUnfinished(), "NX", Number(createdAt ?? Date.now()), move.record);
  }
  return 1;
}

/**
 * current: this release's layout (marked, or a Redis Cluster, which is new with it); empty: nothing
 * of any release under the prefix yet; earlier: keys an earlier release wrote, which this release
 * cannot read until `npm run migrate` moves them.
 */
export type KeyLayoutState = "current" | "empty" | "earlier";

const markerOf = (prefix: string) => `${prefix}:key-layout`;

/**
 * Which layout the prefix holds, in a few reads (no SCAN): the marker, else whether any of layout
 * 1's one-of-a-kind keys exists. A deployment of layout 1 that ever held an API key has `apikeys`.
 */
export async function readKeyLayout(redis: RedisClient, prefix: string): Promise<KeyLayoutState> {
  if (redis instanceof Cluster || (await redis.get(markerOf(prefix))) === KEY_LAYOUT) return "current";
  const earlier = Object.keys(singleMoves(redisKeys(prefix))).map((name) => `${prefix}:${name}`);
  return (await redis.exists(...earlier)) > 0 ? "earlier" : "empty";
}

/**
 * What a gateway or worker does at start: on an empty prefix it marks today's layout; on keys of an
 * earlier release it throws the message that tells the operator to run the migration first. It never
 * moves keys itself: that is the explicit step `npm run migrate` (docs/operations.md, Upgrading).
 */
export async function requireCurrentKeyLayout(redis: RedisClient, prefix: string): Promise<void> {
  const state = await readKeyLayout(redis, prefix);
  if (state === "empty") await redis.set(markerOf(prefix), KEY_LAYOUT, "NX");
  if (state === "earlier") {
    throw new Error(
      `Redis holds keys of an earlier Chorus release under prefix '${prefix}' (their layout has no hash tags): ` +
        "run `npm run migrate` (in an image: node apps/cli/dist/migrate.js) once, then start this release; docs/operations.md, Upgrading",
    );
  }
}

export interface KeyLayoutMigration {
  /** What the prefix held before: "current" means there was nothing to do. */
  before: KeyLayoutState;
  /** Keys renamed or merged into today's names. */
  moved: number;
  /** Jobs left in the earlier release's text queue, which this release does not read. */
  jobsLeft: number;
}

/**
 * Moves what an earlier release wrote (layout 1, keys without hash tags) to today's names, one SCAN
 * page at a time, then writes the marker (`npm run migrate`; npm start runs it). Safe twice or from
 * two places (RENAMENX, merging into a namesake). A `processing` record joins the unfinished set for
 * the sweep; BullMQ's keys are not moved (drain first; `jobsLeft` says when jobs are left).
 */
export async function migrateKeyLayout(redis: RedisClient, prefix: string): Promise<KeyLayoutMigration> {
  const before = await readKeyLayout(redis, prefix);
  if (before === "current" || redis instanceof Cluster) return { before: "current", moved: 0, jobsLeft: 0 };
  const keys = redisKeys(prefix);
  let moved = 0;
  let cursor = "0";
  do {
    const [next, found] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
    const moves = found
      .map((key) => [key, moveOf(prefix, keys, key)] as const)
      .filter((entry): entry is [string, Move] => entry[1] !== null);
    for (const count of await Promise.all(moves.map(([key, move]) => moveKey(redis, key, move, keys)))) moved += count;
    cursor = next;
  } while (cursor !== "0");
  // Its members were the old records' keys: nobody waits behind them now.
  await redis.del(`${prefix}:queue-tickets:text:waiting`);
  const jobsLeft =
    (await redis.llen(`${prefix}:bull:${QUEUES.text}:wait`)) +
    (await redis.llen(`${prefix}:bull:${QUEUES.text}:active`));
  await redis.set(markerOf(prefix), KEY_LAYOUT);
  return { before, moved, jobsLeft };
}

/** What to tell the operator of the jobs an earlier release left in its queue. */
export function jobsLeftBehind(jobs: number): string {
  return `${jobs} job(s) of the earlier release are still in its queue, which this release does not read: their records will close as lost`;
}
