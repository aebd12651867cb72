import type { RedisClient } from "../redis/connection.js";
import type { RedisKeys } from "../redis/redis-keys.js";

/**
 * A place in one API key's index: newest first by acceptance time (ms); requests accepted in the
 * same millisecond follow Redis's reverse byte order of their ids.
 */
export interface IndexPosition {
  acceptedAt: number;
  id: string;
}

export interface IndexSlice {
  entries: IndexPosition[];
  /** True when nothing older than the last entry is left. */
  exhausted: boolean;
}

function toPositions(flat: string[]): IndexPosition[] {
  const positions: IndexPosition[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2)
    positions.push({ id: flat[i] as string, acceptedAt: Number(flat[i + 1]) });
  return positions;
}

/**
 * One API key's text requests, as the status CREATE script indexes them. A place is a time and an
 * id, not an offset, so requests accepted since a page was read never shift the next one.
 */
export class RequestIndex {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  /** Up to `count` entries after `after` in the newest-first order (from the newest when null). */
  async after(keyId: string, after: IndexPosition | null, count: number): Promise<IndexSlice> {
    const key = this.keys.textRequestsOfApiKey(keyId);
    if (after === null) {
      const entries = toPositions(
        await this.redis.zrevrangebyscore(key, "+inf", "-inf", "WITHSCORES", "LIMIT", 0, count),
      );
      return { entries, exhausted: entries.length < count };
    }
    // Both leave together (one round trip): what shares `after`'s millisecond, and what is older.
    const [sameTime, older] = await Promise.all([
      this.redis.zrevrangebyscore(key, after.acceptedAt, after.acceptedAt),
      this.redis.zrevrangebyscore(key, `(${after.acceptedAt}`, "-inf", "WITHSCORES", "LIMIT", 0, count),
    ]);
    // Ids are ASCII, so JavaScript's order is Redis's byte order: smaller ids come later.
    const tied = sameTime.filter((id) => id < after.id).map((id) => ({ id, acceptedAt: after.acceptedAt }));
    const entries = [...tied, ...toPositions(older)];
    if (entries.length > count) return { entries: entries.slice(0, count), exhausted: false };
    return { entries, exhausted: older.length < count };
  }

  /** Takes out ids whose record has expired, so later pages do not read them again. */
  async forget(keyId: string, ids: string[]): Promise<void> {
    if (ids.length > 0) await this.redis.zrem(this.keys.textRequestsOfApiKey(keyId), ...ids);
  }
}
