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
 * remembered, so random guesses cannot fill the memory; the map is bounded as well.
 */
export class CachedApiKeys implements ApiKeyLookup {
  private readonly entries = new Map<string, { record: ApiKeyRecord; expiresAt: number }>();

  constructor(
    private readonly store: ApiKeyStore,
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  findBySecret(secret: string): ApiKeyRecord | Promise<ApiKeyRecord | null> {
    if (this.ttlMs <= 0) return this.store.findBySecret(secret);
    const cached = this.entries.get(secret);
    if (cached && cached.expiresAt > this.now()) return cached.record;
    return this.lookUpAndRemember(secret);
  }

  forget(keyId: string): void {
    // A scan of at most maxEntries, on an operator's revocation only.
    for (const [secret, { record }] of this.entries) if (record.id === keyId) this.entries.delete(secret);
  }

  private async lookUpAndRemember(secret: string): Promise<ApiKeyRecord | null> {
    const record = await this.store.findBySecret(secret);
    this.entries.delete(secret);
    if (record) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(secret, { record, expiresAt: this.now() + this.ttlMs });
    }
    return record;
  }
}
