import type { BudgetHold, UsageBudgets } from "@chorus/contracts";
import type { ChainableCommander } from "ioredis";
import type { RedisClient } from "../redis/connection.js";
import { commandNameOf, defineLuaScripts } from "../redis/lua-scripts.js";
import type { RedisKeys } from "../redis/redis-keys.js";
import { utcDayOf, utcMonthOf } from "./budget-periods.js";

const DAY_S = 24 * 3600;
/** A day's counters outlive the day by two (a request admitted at 23:59 settles after midnight). */
const DAY_TTL_S = 3 * DAY_S;
/** A month's, the longest month and some. */
const MONTH_TTL_S = 40 * DAY_S;
/** A hold lives as long as its month's counters: a job never settled leaves nothing behind for ever. */
const HOLD_TTL_S = MONTH_TTL_S;
/** A settled marker outlasts any repeat of the job's end (retries, take-overs, the sweep: minutes to hours). */
const SETTLED_TTL_S = 2 * DAY_S;

const SCRIPTS = { reserve: "reserve-budget-3.lua", settle: "settle-budget-3.lua" } as const;
const SETTLE_COMMAND = commandNameOf(SCRIPTS.settle);

/** What a request may use at most: tokens (prompt estimate + the reply's most) and audio ms. */
export interface BudgetAsk {
  tokens: number;
  audioMs: number;
}

export interface BudgetRefusal {
  budget: keyof UsageBudgets;
  cap: number;
  /** Used and held when refused (tokens, or audio seconds). */
  inUse: number;
}

export type Reservation =
  | {
      held: true;
      hold: BudgetHold;
      /** What is left after this hold, the least over the budgets that apply (null: none applies). */
      tokensLeft: number | null;
      audioSecondsLeft: number | null;
    }
  | { held: false; refused: BudgetRefusal[] };

/** One finished request's settlement: whose, in which buckets, and what it really used. */
export interface Settlement {
  keyId: string;
  requestId: string;
  day: string;
  month: string;
  tokens: number;
  audioMs: number;
}

/** A budget counter's figures in one period (tokens; audio in ms). */
export interface PeriodFigures {
  tokens: number;
  tokensHeld: number;
  audioMs: number;
  audioMsHeld: number;
}

const isAudio = (budget: keyof UsageBudgets) => budget.startsWith("audio_");

/**
 * Per-key usage budgets in Redis: a counter hash per key and UTC period (day, month) of what was
 * used and what unfinished requests hold, and a hold per request. Admission holds a request's most
 * (reserve); its end gives the hold back and adds what it used (settle), once per request id. Every
 * key of a key's budgets carries its id as hash tag, so each step is one script on one Cluster slot.
 * See docs/usage.md.
 */
export class UsageBudgetLedger {
  private readonly scripts: ReturnType<typeof defineLuaScripts<keyof typeof SCRIPTS>>;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly now: () => number = Date.now,
  ) {
    this.scripts = defineLuaScripts(redis, new URL("../lua/", import.meta.url), SCRIPTS);
  }

  /**
   * Holds `ask` against the caps that apply (audio caps in seconds); a measure without a cap is not
   * held. Null when no cap applies to anything asked: nothing to hold, no round trip.
   */
  async reserve(
    keyId: string,
    requestId: string,
    ask: BudgetAsk,
    caps: Partial<UsageBudgets>,
  ): Promise<Reservation | null> {
    const capped = (day?: number, month?: number) => day !== undefined || month !== undefined;
    const tokens = capped(caps.tokens_day, caps.tokens_month) ? ask.tokens : 0;
    const audioMs = capped(caps.audio_seconds_day, caps.audio_seconds_month) ? ask.audioMs : 0;
    if (tokens <= 0 && audioMs <= 0) return null;
    const now = this.now();
    const [day, month] = [utcDayOf(now), utcMonthOf(now)];
    const ms = (seconds?: number) => (seconds ?? 0) * 1000;
    const reply = (await this.scripts.reserve(
      this.keys.budgetPeriod(keyId, day),
      this.keys.budgetPeriod(keyId, month),
      this.keys.budgetHold(keyId, requestId),
      tokens,
      audioMs,
      caps.tokens_day ?? 0,
      caps.tokens_month ?? 0,
      ms(caps.audio_seconds_day),
      ms(caps.audio_seconds_month),
      DAY_TTL_S,
      MONTH_TTL_S,
      HOLD_TTL_S,
      day,
      month,
    )) as (number | string)[];
    if (reply[0] === 1) {
      const [tokensLeft, audioMsLeft] = [Number(reply[1]), Number(reply[2])];
      const hold = { day, month, tokens, audioMs };
      const audioSecondsLeft = audioMsLeft < 0 ? null : Math.floor(audioMsLeft / 1000);
      return { held: true, hold, tokensLeft: tokensLeft < 0 ? null : tokensLeft, audioSecondsLeft };
    }
    const refused: BudgetRefusal[] = [];
    for (let i = 1; i + 1 < reply.length; i += 2) {
      const budget = reply[i] as keyof UsageBudgets;
      const inUse = Number(reply[i + 1]);
      refused.push({ budget, cap: caps[budget] ?? 0, inUse: isAudio(budget) ? inUse / 1000 : inUse });
    }
    return { held: false, refused };
  }

  /**
   * Adds the settlement's script (EVALSHA) to a pipeline or transaction of this ledger's connection,
   * so it travels with whatever else a finishing job writes about its key (same hash tag): one round
   * trip. Its reply in the batch is 1 (settled now) or 0 (settled before).
   */
  settleIn(batch: ChainableCommander, s: Settlement): ChainableCommander {
    const settle = (batch as unknown as Record<string, (...args: (string | number)[]) => ChainableCommander>)[
      SETTLE_COMMAND
    ];
    if (!settle) throw new Error(`${SETTLE_COMMAND} is not defined on this batch's connection`);
    return settle.call(batch, ...this.settleArgs(s));
  }

  /** A pipeline on this ledger's connection, where its settle script is defined (for settleIn). */
  pipeline(): ChainableCommander {
    return this.redis.pipeline();
  }

  /** Settles alone (one round trip): true when settled now, false when it had been already. */
  async settle(s: Settlement): Promise<boolean> {
    return (await this.scripts.settle(...this.settleArgs(s))) === 1;
  }

  /**
   * Gives back what a request that ended without running holds (cancelled while queued, not
   * queued, lost): it used nothing. A request with no hold (or settled already) changes nothing.
   */
  async release(keyId: string, requestId: string): Promise<boolean> {
    const hold = await this.redis.hmget(this.keys.budgetHold(keyId, requestId), "day", "month");
    const [day, month] = hold;
    if (!day || !month) return false;
    return this.settle({ keyId, requestId, day, month, tokens: 0, audioMs: 0 });
  }

  /** What a request holds now (its hold as admission made it), or undefined: none was made, or it was settled. */
  async heldFor(keyId: string, requestId: string): Promise<BudgetHold | undefined> {
    const [day, month, tokens, audioMs] = await this.redis.hmget(
      this.keys.budgetHold(keyId, requestId),
      "day",
      "month",
      "tokens",
      "audioMs",
    );
    if (!day || !month) return undefined;
    return { day, month, tokens: Number(tokens ?? 0), audioMs: Number(audioMs ?? 0) };
  }

  /** The buckets a job counts in: its hold's, else those of when it was accepted. */
  static periodOf(job: { budget?: BudgetHold | undefined; acceptedAt: number }): { day: string; month: string } {
    if (job.budget) return { day: job.budget.day, month: job.budget.month };
    return { day: utcDayOf(job.acceptedAt), month: utcMonthOf(job.acceptedAt) };
  }

  /** A key's counters in one period (`YYYY-MM-DD` or `YYYY-MM`). */
  async figures(keyId: string, period: string): Promise<PeriodFigures> {
    const hash = await this.redis.hgetall(this.keys.budgetPeriod(keyId, period));
    const n = (field: string) => Number(hash[field] ?? 0);
    return { tokens: n("tokens"), tokensHeld: n("tokensHeld"), audioMs: n("audioMs"), audioMsHeld: n("audioMsHeld") };
  }

  private settleArgs(s: Settlement): (string | number)[] {
    return [
      this.keys.budgetPeriod(s.keyId, s.day),
      this.keys.budgetPeriod(s.keyId, s.month),
      this.keys.budgetHold(s.keyId, s.requestId),
      Math.max(0, Math.round(s.tokens)),
      Math.max(0, Math.round(s.audioMs)),
      DAY_TTL_S,
      MONTH_TTL_S,
      SETTLED_TTL_S,
    ];
  }
}
