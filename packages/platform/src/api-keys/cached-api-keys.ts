import { LRUCache } from "lru-cache";
import type { ApiKeyRecord, ApiKeyStore } from "./api-key-store.js";

export interface ApiKeyLookup {
  /** A cached key is answered at once, without a promise: most requests need no await for their key. */
  findBySecret(secret: string): ApiKeyRecord | null | Promise<ApiKeyRecord | null>;
  /** Forgets a key this process remembers: a revocation made here then takes effect here at once. */
  forget(keyId: string): void;
}

/**
 * Remembers found keys in this process for `ttlMs`, saving a Redis round trip and a hash on most
 * requests. A revocation therefore takes effect within `ttlMs` everywhere. Unknown keys are not
 * remembered, so random guesses cannot fill the memory; at most `maxEntries` are, the least recently
 * used going first. Concurrent lookups of one key that is not cached share one Redis read (a burst of
 * requests with a new key, or just after its entry expired).
 */
export class CachedApiKeys implements ApiKeyLookup {
  private readonly entries: LRUCache<string, ApiKeyRecord> | null;

  constructor(
    private readonly store: ApiKeyStore,
    ttlMs: number,
    maxEntries = 10_000,
    now: () => number = Date.now,
  ) {
    this.entries =
      ttlMs > 0
        ? new LRUCache<string, ApiKeyRecord>({
            max: maxEntries,
            ttl: ttlMs,
            perf: { now },
            // Read the clock on each check: a revocation's ttlMs is the bound, not ttlMs plus a cached tick
            ttlResolution: 0,
            // A key not found is undefined: lru-cache then keeps nothing.
            fetchMethod: async (secret) => (await store.findBySecret(secret)) ?? undefined,
          })
        : null;
  }

  findBySecret(secret: string): ApiKeyRecord | Promise<ApiKeyRecord | null> {
    if (!this.entries) return this.store.findBySecret(secret);
    return this.entries.get(secret) ?? this.entries.fetch(secret).then((record) => record ?? null);
  }

  forget(keyId: string): void {
    if (!this.entries) return;
    // A scan of at most maxEntries, on an operator's revocation only.
    for (const [secret, record] of this.entries.entries()) if (record.id === keyId) this.entries.delete(secret);
  }
}
