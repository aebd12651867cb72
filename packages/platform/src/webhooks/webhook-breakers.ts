import type { RedisClient } from "../redis/connection.js";
import { defineLuaScripts, type LuaCommand } from "../redis/lua-scripts.js";
import type { RedisKeys } from "../redis/redis-keys.js";

const SCRIPTS = { admit: "admit-webhook-attempt-1.lua", record: "record-webhook-attempt-1.lua" } as const;

export interface BreakerSettings {
  /** Failed attempts in a row to one address that pause it for the key. */
  failures: number;
  /** How long (ms) it is paused; then one attempt goes as the trial. */
  pauseMs: number;
  /** How long (ms) the other attempts wait for a trial's outcome (an attempt's deadline and some). */
  trialLeaseMs: number;
}

/** Whether an attempt may go: `closed`, `trial` (the one after a pause), or `paused` until `until` (ms). */
export type BreakerGate = { state: "closed" | "trial" } | { state: "paused"; until: number };

/** One address of a key that failed lately, as the admin API shows it. */
export interface BreakerState {
  address: string;
  consecutiveFailures: number;
  /** `paused` until `pausedUntil`; then `trial` (the next attempt decides); `closed`: failing, not paused. */
  state: "closed" | "paused" | "trial";
  pausedUntil: string | null;
}

/** How long a key's breakers are kept after their last failure. */
const KEPT_MS = 24 * 3600 * 1000;

/**
 * A circuit breaker per API key and receiver address (the URL's origin), shared by every worker
 * through Redis: an address that keeps failing for a key is paused for that key only (another key's
 * deliveries to it go on: no key can pause another's receiver), attempts to it fail at once without
 * a connection, and after the pause one trial attempt decides whether it closes or pauses again.
 */
export class WebhookBreakers {
  private readonly scripts: Record<keyof typeof SCRIPTS, LuaCommand>;

  constructor(
    redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly settings: BreakerSettings,
  ) {
    this.scripts = defineLuaScripts(redis, new URL("../lua/", import.meta.url), SCRIPTS);
  }

  async admit(keyId: string, address: string, now = Date.now()): Promise<BreakerGate> {
    const [state, until] = (await this.scripts.admit(
      this.keys.webhookBreakers(keyId),
      address,
      now,
      this.settings.trialLeaseMs,
    )) as [string, number];
    return state === "paused" ? { state, until } : { state: state === "trial" ? "trial" : "closed" };
  }

  /** Records an attempt's outcome; says whether that paused the address or closed its breaker. */
  async record(keyId: string, address: string, ok: boolean, now = Date.now()): Promise<"paused" | "closed" | null> {
    const { failures, pauseMs } = this.settings;
    const change = (await this.scripts.record(
      this.keys.webhookBreakers(keyId),
      address,
      now,
      ok ? "1" : "0",
      failures,
      pauseMs,
      KEPT_MS,
    )) as string;
    return change === "paused" || change === "closed" ? change : null;
  }
}

/** A key's addresses that failed lately (the admin API's view), without the scripts: the gateway only reads. */
export async function readBreakers(
  redis: RedisClient,
  keys: RedisKeys,
  keyId: string,
  now = Date.now(),
): Promise<BreakerState[]> {
  const hash = await redis.hgetall(keys.webhookBreakers(keyId));
  return Object.entries(hash).map(([address, raw]) => {
    const [failures = 0, pausedUntil = 0] = raw.split(",").map(Number);
    const state = pausedUntil === 0 ? "closed" : pausedUntil > now ? "paused" : "trial";
    const until = pausedUntil === 0 ? null : new Date(pausedUntil).toISOString();
    return { address, consecutiveFailures: failures, state, pausedUntil: until };
  });
}
