import type { RedisClient } from "../redis/connection.js";
import type { RedisKeys } from "../redis/redis-keys.js";

/** How often one process writes a key's last use at most: `keys list` shows it to the minute. */
export const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/**
 * Records when each key last authenticated, off the request path: at most one write per key per
 * `intervalMs` in this process, not awaited (a failed write only leaves the time older; the next
 * try comes an interval later). The other requests cost a Map lookup, no Redis round trip.
 */
export class KeyLastUsed {
  private readonly writtenAt = new Map<string, number>();

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly intervalMs = LAST_USED_WRITE_INTERVAL_MS,
  ) {}

  note(keyId: string, now = Date.now()): void {
    const last = this.writtenAt.get(keyId);
    if (last !== undefined && now - last < this.intervalMs) return;
    this.writtenAt.set(keyId, now);
    const write = this.redis.hset(this.keys.apiKeyLastUsed(), keyId, new Date(now).toISOString());
    write.catch(() => undefined);
  }
}
