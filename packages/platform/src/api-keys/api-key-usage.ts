import { LIMITED_OPERATIONS, type OperationLimits } from "@chorus/contracts";
import type { RedisClient } from "../redis/connection.js";
import type { RedisKeys } from "../redis/redis-keys.js";
import { figuresByModel } from "../usage/usage-figures.js";
import { USAGE_KEEP_SECONDS, utcDay } from "../usage/usage-meter.js";

export { utcDay };

export type UsageOperation = keyof OperationLimits;

/** Days GET /admin/keys/{id}/usage reports. */
export const USAGE_DAYS = 30;
const DAY_MS = 24 * 3600 * 1000;

/** What one API key used on one UTC day. */
export interface DailyUsage {
  /** `YYYY-MM-DD`, UTC. */
  date: string;
  /** Requests admitted past authentication and the operation's rate limit. */
  requests: Record<UsageOperation, number>;
  /** Generated tokens and prompt tokens of completed text requests (by model: GET /admin/usage). */
  tokens: number;
  promptTokens: number;
  /** Seconds of speech synthesized. */
  speechSeconds: number;
}

const requestField = (operation: UsageOperation) => `requests:${operation}`;

function fromHash(date: string, hash: Record<string, string>): DailyUsage {
  const count = (field: string) => Number(hash[field] ?? 0);
  const requests = Object.fromEntries(LIMITED_OPERATIONS.map((op) => [op, count(requestField(op))])) as Record<
    UsageOperation,
    number
  >;
  // What the jobs' metering added, over every model; `tokens`, `promptTokens`, `speechMs`: what releases before it
  // counted (kept while their days last).
  const metered = [...figuresByModel(hash).values()];
  const sum = (pick: (f: (typeof metered)[number]) => number) => metered.reduce((total, f) => total + pick(f), 0);
  return {
    date,
    requests,
    tokens: count("tokens") + sum((f) => f.completionTokens),
    promptTokens: count("promptTokens") + sum((f) => f.promptTokens),
    speechSeconds: Math.round(count("speechMs") + sum((f) => f.audioSeconds) * 1000) / 1000,
  };
}

/** The days added up (speech seconds rounded to the millisecond counted). */
export function sumUsage(days: DailyUsage[]): Omit<DailyUsage, "date"> {
  const sum = (pick: (day: DailyUsage) => number) => days.reduce((total, day) => total + pick(day), 0);
  const requests = Object.fromEntries(LIMITED_OPERATIONS.map((op) => [op, sum((day) => day.requests[op])])) as Record<
    UsageOperation,
    number
  >;
  return {
    requests,
    tokens: sum((d) => d.tokens),
    promptTokens: sum((d) => d.promptTokens),
    speechSeconds: Math.round(sum((d) => d.speechSeconds) * 1000) / 1000,
  };
}

/**
 * Per-key, per-UTC-day usage counters: one Redis hash a key a day, bumped with HINCRBY, its
 * expiry renewed with each bump (so a day's counters leave by themselves). Gateways count the
 * requests they admit here; what jobs used is metered into the same hash (usage/usage-meter.ts);
 * reading 30 days is one pipelined round trip.
 */
export class ApiKeyUsage {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Requests admitted on UTC `day` (default today), by operation: a gateway adds what it counted over a second (see its
   * RequestCounts).
   */
  async countRequests(
    keyId: string,
    requests: Partial<Record<UsageOperation, number>>,
    day = utcDay(this.now()),
  ): Promise<void> {
    await this.add(
      keyId,
      Object.fromEntries(
        Object.entries(requests).map(([operation, count]) => [requestField(operation as UsageOperation), count]),
      ),
      day,
    );
  }

  /** The last `days` UTC days, today last, zeros where nothing was counted. */
  async lastDays(keyId: string, days = USAGE_DAYS): Promise<DailyUsage[]> {
    const today = this.now();
    const dates = Array.from({ length: days }, (_, i) => utcDay(today - (days - 1 - i) * DAY_MS));
    const pipeline = this.redis.pipeline();
    for (const date of dates) pipeline.hgetall(this.keys.apiKeyUsage(keyId, date));
    const replies = (await pipeline.exec()) ?? [];
    return dates.map((date, i) => {
      const [error, hash] = replies[i] ?? [null, {}];
      if (error) throw error;
      return fromHash(date, hash as Record<string, string>);
    });
  }

  /**
   * One transaction (the day's hash is one key): a batch Redis refuses (connection lost, READONLY) is
   * not half applied. One whose reply alone is lost may be counted again by a caller that retries.
   */
  private async add(keyId: string, amounts: Record<string, number>, day = utcDay(this.now())): Promise<void> {
    const key = this.keys.apiKeyUsage(keyId, day);
    const transaction = this.redis.multi();
    for (const [field, amount] of Object.entries(amounts)) transaction.hincrby(key, field, amount);
    const replies = await transaction.expire(key, USAGE_KEEP_SECONDS).exec();
    const failed = replies?.find(([error]) => error)?.[0];
    if (!replies || failed) throw failed ?? new Error("usage transaction discarded");
  }
}
