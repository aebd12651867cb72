import type { EngineFeatures } from "@chorus/contracts";
import type { RedisClient } from "../redis/connection.js";

/** How long the gateway trusts a model's features read from Redis (a worker restart may change them). */
const CACHE_MS = 5_000;

/**
 * What each model's engine honours beyond the contract (extra sampling fields, structured output):
 * workers publish it when they start, the gateway reads it at admission to refuse (400) what the
 * engine cannot do. Workers serving one model with different engines overwrite one another: the
 * last to start wins, and each worker still refuses a job its own engine cannot run.
 */
export class ModelFeatures {
  private readonly cache = new Map<string, { features: EngineFeatures | null; until: number }>();

  constructor(
    private readonly redis: RedisClient,
    private readonly key: string,
    private readonly now: () => number = Date.now,
  ) {}

  async publish(features: Record<string, EngineFeatures>): Promise<void> {
    const fields = Object.entries(features).flatMap(([model, f]) => [model, JSON.stringify(f)]);
    if (fields.length > 0) await this.redis.hset(this.key, ...fields);
  }

  /** The model's features, or null when no worker has published them yet. */
  async of(model: string): Promise<EngineFeatures | null> {
    const cached = this.cache.get(model);
    if (cached && cached.until > this.now()) return cached.features;
    const raw = await this.redis.hget(this.key, model);
    const features = raw ? (JSON.parse(raw) as EngineFeatures) : null;
    this.cache.set(model, { features, until: this.now() + CACHE_MS });
    return features;
  }
}
