import type { BatchEndpoint, BatchStatus } from "@chorus/contracts";
import type { RedisClient } from "../redis/connection.js";
import { defineLuaScripts, type LuaCommand } from "../redis/lua-scripts.js";
import type { RedisKeys } from "../redis/redis-keys.js";

/** A batch as kept: OpenAI's object's fields (times in Unix seconds, null until reached) and what feeding needs. */
export interface StoredBatch {
  id: string;
  keyId: string;
  endpoint: BatchEndpoint;
  inputFileId: string;
  status: BatchStatus;
  total: number;
  completed: number;
  failed: number;
  /** Times, Unix seconds: `created_at`, `in_progress_at`, `expires_at`, … as OpenAI names them. */
  times: Record<string, number>;
  outputFileId: string | null;
  errorFileId: string | null;
  metadata: Record<string, string> | null;
  /** Feeding has stopped (the window has passed): fed lines end, the rest expire. */
  stopFeeding: boolean;
}

/** A line claimed to be fed: its index in the input, and its request as stored (null: the input is gone). */
export interface ClaimedLine {
  index: number;
  text: string | null;
}

export interface NewBatch {
  id: string;
  keyId: string;
  endpoint: BatchEndpoint;
  inputFileId: string;
  metadata: Record<string, string> | null;
  createdAt: number;
  expiresAt: number;
}

const SCRIPTS = {
  count: "count-batch-line-3.lua",
  claim: "claim-batch-lines-3.lua",
  cancel: "cancel-batch-1.lua",
  unlock: "unlock-batch-1.lua",
} as const;

/** A final batch (and its object) is kept this long after its window: as long as its files at most. */
const KEEP_SECONDS = 30 * 24 * 3600;

const TIME_FIELDS = [
  "created_at",
  "in_progress_at",
  "expires_at",
  "finalizing_at",
  "completed_at",
  "failed_at",
  "expired_at",
  "cancelling_at",
  "cancelled_at",
] as const;

function fromHash(hash: Record<string, string>): StoredBatch | null {
  if (!hash.id) return null;
  const times: Record<string, number> = {};
  for (const field of TIME_FIELDS) if (hash[field]) times[field] = Number(hash[field]);
  return {
    id: hash.id,
    keyId: hash.keyId ?? "",
    endpoint: hash.endpoint as BatchEndpoint,
    inputFileId: hash.inputFileId ?? "",
    status: hash.status as BatchStatus,
    total: Number(hash.total ?? 0),
    completed: Number(hash.completed ?? 0),
    failed: Number(hash.failed ?? 0),
    times,
    outputFileId: hash.outputFileId || null,
    errorFileId: hash.errorFileId || null,
    metadata: hash.metadata ? (JSON.parse(hash.metadata) as Record<string, string>) : null,
    stopFeeding: hash.stopFeeding === "1",
  };
}

/**
 * Batches in Redis: per batch a hash, its input lines (a list), its ended lines (a hash, counted
 * once by one script) and its lines fed (a set), all under the batch's hash tag; per key a sorted
 * set of its batches and a set of those not yet final; one set of every batch not yet final, for the
 * feeders.
 */
export class BatchStore {
  private readonly scripts: Record<keyof typeof SCRIPTS, LuaCommand>;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {
    this.scripts = defineLuaScripts(redis, new URL("../lua/", import.meta.url), SCRIPTS);
  }

  /** Stores a validated batch `in_progress` with its lines, and lists it under its key. */
  async create(batch: NewBatch, lines: string[]): Promise<void> {
    const k = this.keys;
    const ttl = Math.max(1, batch.expiresAt - batch.createdAt) + KEEP_SECONDS;
    const fields = {
      id: batch.id,
      keyId: batch.keyId,
      endpoint: batch.endpoint,
      inputFileId: batch.inputFileId,
      status: "in_progress",
      total: lines.length,
      completed: 0,
      failed: 0,
      next: 0,
      created_at: batch.createdAt,
      in_progress_at: batch.createdAt,
      expires_at: batch.expiresAt,
      metadata: batch.metadata ? JSON.stringify(batch.metadata) : "",
    };
    const write = this.redis.multi().hset(k.batch(batch.id), fields).expire(k.batch(batch.id), ttl);
    if (lines.length > 0) write.rpush(k.batchLines(batch.id), ...lines).expire(k.batchLines(batch.id), ttl);
    await write.exec();
    await this.redis
      .multi()
      .zadd(k.batchesOfApiKey(batch.keyId), batch.createdAt, batch.id)
      .expire(k.batchesOfApiKey(batch.keyId), ttl)
      .sadd(k.batchesActiveOfApiKey(batch.keyId), batch.id)
      .exec();
    await this.redis.sadd(k.batchesActive(), batch.id);
  }

  /** The key's batches not yet final. */
  async activeCount(keyId: string): Promise<number> {
    return this.redis.scard(this.keys.batchesActiveOfApiKey(keyId));
  }

  /** Every batch not yet final (for the feeders' loop). */
  async active(): Promise<string[]> {
    return this.redis.smembers(this.keys.batchesActive());
  }

  async get(batchId: string): Promise<StoredBatch | null> {
    return fromHash(await this.redis.hgetall(this.keys.batch(batchId)));
  }

  /** The key's batches, newest first, a page of them after `after`, and whether more follow. */
  async list(keyId: string, limit: number, after?: string): Promise<{ batches: StoredBatch[]; hasMore: boolean }> {
    const key = this.keys.batchesOfApiKey(keyId);
    let start = 0;
    if (after !== undefined) {
      const rank = await this.redis.zrevrank(key, after);
      if (rank === null) return { batches: [], hasMore: false };
      start = rank + 1;
    }
    const ids = await this.redis.zrevrange(key, start, start + limit);
    const found = await Promise.all(ids.slice(0, limit).map((id) => this.get(id)));
    return { batches: found.filter((b): b is StoredBatch => b !== null), hasMore: ids.length > limit };
  }

  /** The input line at `index` (JSON, as validated), or null. */
  async line(batchId: string, index: number): Promise<string | null> {
    return this.redis.lindex(this.keys.batchLines(batchId), index);
  }

  async lines(batchId: string): Promise<string[]> {
    return this.redis.lrange(this.keys.batchLines(batchId), 0, -1);
  }

  /**
   * Claims the next lines to feed, keeping at most `window` fed and not ended, with their text (null
   * when the input lines are gone) in the same round trip (claim-batch-lines-3.lua).
   */
  async claim(batchId: string, window: number): Promise<ClaimedLine[]> {
    const k = this.keys;
    const flat = (await this.scripts.claim(
      k.batch(batchId),
      k.batchLinesFed(batchId),
      k.batchLines(batchId),
      window,
    )) as Array<number | string | null>;
    const claimed: ClaimedLine[] = [];
    for (let at = 0; at < flat.length; at += 2)
      claimed.push({
        index: Number(flat[at]),
        text: typeof flat[at + 1] === "string" ? (flat[at + 1] as string) : null,
      });
    return claimed;
  }

  /** Every batch's lines fed and not yet ended (queued or running), all batches together. */
  async fedTotal(): Promise<number> {
    const ids = await this.active();
    const counts = await Promise.all(ids.map((id) => this.redis.scard(this.keys.batchLinesFed(id))));
    return counts.reduce((sum, n) => sum + n, 0);
  }

  /** The lines fed and not yet ended. */
  async fed(batchId: string): Promise<number[]> {
    return (await this.redis.smembers(this.keys.batchLinesFed(batchId))).map(Number);
  }

  /**
   * Counts a line's end once (count-batch-line-3.lua); true when this call counted it. `nudge`: the
   * feeders are told in the same call (see nudge), for one counted elsewhere than in a feeder's step.
   */
  async countLine(batchId: string, line: number, completed: boolean, kept = "", nudge = false): Promise<boolean> {
    const k = this.keys;
    const counted = await this.scripts.count(
      k.batch(batchId),
      k.batchLinesDone(batchId),
      k.batchLinesFed(batchId),
      line,
      completed ? "completed" : "failed",
      kept,
      Math.floor(Date.now() / 1000),
      nudge ? k.batchFeedChannel() : "",
      batchId,
    );
    return counted === 1;
  }

  /** How each ended line ended (line index -> '' or a JSON error). */
  async ended(batchId: string): Promise<Map<number, string>> {
    const hash = await this.redis.hgetall(this.keys.batchLinesDone(batchId));
    return new Map(Object.entries(hash).map(([line, kept]) => [Number(line), kept]));
  }

  /** `cancelling`, from `in_progress`; the status after the call (null: no such batch). */
  async cancel(batchId: string): Promise<BatchStatus | null> {
    const status = await this.scripts.cancel(this.keys.batch(batchId), Math.floor(Date.now() / 1000));
    return status ? (status as BatchStatus) : null;
  }

  /** Its window has passed: no more lines are fed. */
  async stopFeeding(batchId: string): Promise<void> {
    await this.redis.hset(this.keys.batch(batchId), "stopFeeding", "1");
  }

  /** The batch turns final with its files; it leaves the sets of batches not yet final and its lines go. */
  async finish(batch: StoredBatch, status: BatchStatus, files: { output: string | null; error: string | null }) {
    const k = this.keys;
    const at = Math.floor(Date.now() / 1000);
    await this.redis
      .multi()
      .hset(k.batch(batch.id), {
        status,
        [`${status}_at`]: at,
        outputFileId: files.output ?? "",
        errorFileId: files.error ?? "",
        ...(batch.times.finalizing_at === undefined ? { finalizing_at: at } : {}),
      })
      .del(k.batchLines(batch.id), k.batchLinesFed(batch.id))
      .expire(k.batchLinesDone(batch.id), KEEP_SECONDS)
      .exec();
    await this.redis.srem(k.batchesActiveOfApiKey(batch.keyId), batch.id);
    await this.redis.srem(k.batchesActive(), batch.id);
  }

  /** One feeder at a time per batch (a lock that expires, so a killed feeder holds nothing for long). */
  async lock(batchId: string, owner: string, ms: number): Promise<boolean> {
    return (await this.redis.set(this.keys.batchLock(batchId), owner, "PX", ms, "NX")) === "OK";
  }

  /** Lets go of the lock if `owner` still holds it: one round trip, never another's lock (unlock-batch-1.lua). */
  async unlock(batchId: string, owner: string): Promise<void> {
    await this.scripts.unlock(this.keys.batchLock(batchId), owner);
  }
}
