import { randomUUID } from "node:crypto";
import { ApiError } from "@chorus/contracts";
import type { Logger } from "@chorus/platform/logger";
import { defineLuaScripts, type LuaCommand, type RedisClient, type RedisKeys } from "@chorus/platform/redis";

export interface OpenStreamsOptions {
  /** Most streams and waits this gateway holds open, all keys together. */
  perGateway: number;
  /** How long an entry lives without renewal (by Redis's clock): what a dead gateway's streams count for. */
  lifetimeMs?: number;
}

/** Retry-After of a refused stream: about when a request in flight has moved on. */
const RETRY_AFTER_SECONDS = 5;

/**
 * What each API key holds open across every gateway: status streams and `Prefer: wait` holds, one
 * entry each in a per-key sorted set by expiry, renewed by the gateway holding it. A key at its cap
 * gets 429; a gateway at its own cap (memory, sockets) answers 503, as for any capacity limit.
 */
export class OpenStreams {
  private readonly gatewayId = randomUUID();
  private readonly held = new Map<string, Set<string>>();
  private count = 0;
  private serial = 0;
  private readonly lifetimeMs: number;
  private readonly timer: NodeJS.Timeout;
  private readonly scripts: Record<"open" | "renew", LuaCommand>;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly options: OpenStreamsOptions,
    private readonly logger?: Logger,
  ) {
    this.lifetimeMs = options.lifetimeMs ?? 30_000;
    this.scripts = defineLuaScripts(redis, new URL("../lua/", import.meta.url), {
      open: "open-stream-1.lua",
      renew: "renew-streams-1.lua",
    });
    this.timer = setInterval(() => void this.renew(), this.lifetimeMs / 3);
    this.timer.unref();
  }

  /** How many this gateway holds now. */
  get open(): number {
    return this.count;
  }

  /**
   * Takes a place for one stream or wait of `keyId`, or throws the 429/503 that says which cap is
   * full. The returned function gives it back (once, whatever calls it).
   */
  async hold(keyId: string, cap: number): Promise<() => void> {
    if (this.count >= this.options.perGateway) {
      throw new ApiError(
        "SERVICE_UNAVAILABLE",
        `this gateway holds its most open status streams and waits (${this.options.perGateway}); retry shortly, or poll`,
        undefined,
        RETRY_AFTER_SECONDS,
      );
    }
    this.count++; // counted before the round trip, so concurrent opens cannot pass the gateway's cap together
    const entry = `${this.gatewayId}:${++this.serial}`;
    const taken = await this.scripts
      .open(this.keys.openStreamsOfApiKey(keyId), this.lifetimeMs, entry, cap)
      .catch((error: unknown) => {
        this.count--;
        throw error;
      });
    if (taken !== 1) {
      this.count--;
      const message = `this API key already has ${cap} open status streams and waits, its cap (max streams ${cap}); close one, or poll without waiting`;
      throw new ApiError("RATE_LIMITED", message, undefined, RETRY_AFTER_SECONDS);
    }
    const entries = this.held.get(keyId) ?? new Set<string>();
    this.held.set(keyId, entries.add(entry));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release(keyId, entry);
    };
  }

  close(): void {
    clearInterval(this.timer);
  }

  private release(keyId: string, entry: string): void {
    this.count--;
    const entries = this.held.get(keyId);
    entries?.delete(entry);
    if (entries?.size === 0) this.held.delete(keyId);
    // Should this fail, the entry lapses after its lifetime instead.
    this.redis.zrem(this.keys.openStreamsOfApiKey(keyId), entry).catch(() => undefined);
  }

  /**
   * Renews every entry this gateway holds (every third of a lifetime), putting back those that
   * lapsed while Redis was out of reach: their streams are still open and count against the cap.
   */
  async renew(): Promise<void> {
    const renewals = [...this.held].map(([keyId, entries]) =>
      this.scripts.renew(this.keys.openStreamsOfApiKey(keyId), this.lifetimeMs, ...entries),
    );
    const results = await Promise.allSettled(renewals);
    const failed = results.filter((result) => result.status === "rejected").length;
    if (failed > 0) this.logger?.warn("could not renew open streams", { keys: failed });
    const restored = results.reduce(
      (sum, result) => sum + (result.status === "fulfilled" ? Number(result.value) : 0),
      0,
    );
    if (restored > 0) this.logger?.warn("open streams that had lapsed are counted again", { streams: restored });
  }
}
