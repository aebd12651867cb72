import type { RedisClient } from "../redis/connection.js";
import { defineLuaScripts, type LuaCommand } from "../redis/lua-scripts.js";
import type { RedisKeys } from "../redis/redis-keys.js";
import { LAST_TURN, RESTART_TURNS_AFTER } from "../scheduler/fair-turns.js";

const SCRIPTS = {
  join: "join-webhook-queue-2.lua",
  next: "next-webhook-turn-1.lua",
  start: "start-webhook-turn-2.lua",
} as const;

/**
 * Webhook deliveries take turns between API keys, as text requests do (scheduler/fair-turns.ts): a
 * delivery's turn, its job's BullMQ priority, is one after its key's previous delivery and never
 * earlier than the turn being served, so a key with 200 deliveries queued holds turns n+1..n+200 and
 * another key's one delivery gets n+1: it goes out as soon as a slot frees, not after the 200. A
 * retry takes a new turn behind its key's queued deliveries. Each key's deliveries queued and not
 * ended are counted here too (its pending bound, checked at submit). Every key here is in the
 * webhook queue's hash slot.
 */
export class WebhookTurns {
  private readonly scripts: Record<keyof typeof SCRIPTS, LuaCommand>;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    /** After this long (ms) a pending entry no longer counts: no delivery outlives its record. */
    private readonly horizonMs: number,
  ) {
    this.scripts = defineLuaScripts(redis, new URL("../lua/", import.meta.url), SCRIPTS);
  }

  /** A delivery of `keyId` is queued: it counts as pending; returns its turn. */
  async join(keyId: string, requestId: string, now = Date.now()): Promise<number> {
    const k = this.keys;
    return (await this.scripts.join(
      k.webhookTurns(),
      k.webhookPending(keyId),
      keyId,
      requestId,
      now,
      LAST_TURN,
      this.horizonMs,
    )) as number;
  }

  /** The turn of a retry of a delivery of `keyId`. */
  async retryTurn(keyId: string): Promise<number> {
    return (await this.scripts.next(this.keys.webhookTurns(), keyId, LAST_TURN)) as number;
  }

  /** An attempt of `turn` starts: the turn being served moves up to it. */
  async start(turn: number): Promise<void> {
    await this.scripts.start(this.keys.webhookTurns(), this.keys.webhookQueueWaiting(), turn, RESTART_TURNS_AFTER);
  }

  /** A delivery of `keyId` ended (delivered, or given up): it no longer counts as pending. */
  async ended(keyId: string, requestId: string): Promise<void> {
    await this.redis.zrem(this.keys.webhookPending(keyId), requestId);
  }

  /** Deliveries of `keyId` queued and not yet ended. */
  async pending(keyId: string, now = Date.now()): Promise<number> {
    return this.redis.zcount(this.keys.webhookPending(keyId), `(${now - this.horizonMs}`, "+inf");
  }
}
