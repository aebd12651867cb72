import { daysOfRange, type UsageQuery } from "@chorus/contracts";
import type { RedisClient } from "../redis/connection.js";
import type { RedisKeys } from "../redis/redis-keys.js";
import { addFigures, figuresByModel, isEmptyFigures, zeroFigures, type UsageFigures } from "./usage-figures.js";

/** One bucket of a report: a day (groupBy=day) or a model (groupBy=model), with what was used in it. */
export type UsageBucket = ({ day: string } | { model: string }) & UsageFigures;

/** One key's usage over a range of UTC days. */
export interface UsageReport {
  keyId: string;
  from: string;
  to: string;
  groupBy: UsageQuery["groupBy"];
  /** Buckets where something was used, oldest day first (by day) or by model id (by model). */
  buckets: UsageBucket[];
  total: UsageFigures;
}

/** Each day's figures by model. */
type DaysByModel = [day: string, byModel: Map<string, UsageFigures>][];

function byDay(days: DaysByModel): UsageBucket[] {
  return days
    .map(([day, byModel]) => ({ day, ...[...byModel.values()].reduce(addFigures, zeroFigures()) }))
    .filter((bucket) => !isEmptyFigures(bucket));
}

function byModel(days: DaysByModel): UsageBucket[] {
  const models = new Map<string, UsageFigures>();
  for (const [, dayModels] of days)
    for (const [model, figures] of dayModels)
      models.set(model, addFigures(models.get(model) ?? zeroFigures(), figures));
  return [...models.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([model, figures]) => ({ model, ...figures }));
}

/**
 * Reads what keys' finished jobs used (usage-meter.ts writes it): one HGETALL a day, in one batch
 * per key (a key's days share its hash tag, so on a Cluster the batch goes to one node).
 */
export class UsageReader {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  async report(keyId: string, query: UsageQuery): Promise<UsageReport> {
    const days = await this.days(keyId, daysOfRange(query));
    const buckets = query.groupBy === "day" ? byDay(days) : byModel(days);
    const total = buckets.reduce<UsageFigures>(addFigures, zeroFigures());
    return { keyId, from: query.from, to: query.to, groupBy: query.groupBy, buckets, total };
  }

  private async days(keyId: string, days: string[]): Promise<DaysByModel> {
    const pipeline = this.redis.pipeline();
    for (const day of days) pipeline.hgetall(this.keys.apiKeyUsage(keyId, day));
    const replies = (await pipeline.exec()) ?? [];
    return days.map((day, i) => {
      const [error, hash] = replies[i] ?? [new Error("usage read discarded"), null];
      if (error) throw error;
      return [day, figuresByModel(hash as Record<string, string>)];
    });
  }
}
