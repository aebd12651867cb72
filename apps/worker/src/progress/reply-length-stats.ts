import type { RedisClient } from "@chorus/platform/redis";
import type { ModelId } from "@chorus/contracts";

/** Weight of the newest reply in the running average. */
const ALPHA = 0.2;

/**
 * Learns how long each model's replies usually are (an exponential moving average of generated
 * tokens), so progress can aim at a realistic length instead of max_tokens. Shared through one Redis
 * hash, so every worker starts from what the others learned; the last writer wins, which is fine
 * for an estimate.
 */
export class ReplyLengthStats {
  private readonly averages = new Map<ModelId, number>();

  constructor(
    private readonly redis: RedisClient,
    private readonly key: string,
  ) {}

  async load(): Promise<void> {
    for (const [model, value] of Object.entries(await this.redis.hgetall(this.key))) {
      const average = Number(value);
      if (Number.isFinite(average) && average > 0) this.averages.set(model as ModelId, average);
    }
  }

  /** Tokens a reply is expected to take: the learned average (with some headroom), never above max_tokens. */
  expectedTokens(model: ModelId, maxTokens: number): number {
    const average = this.averages.get(model);
    return average === undefined ? maxTokens : Math.min(maxTokens, Math.ceil(average * 1.1));
  }

  record(model: ModelId, tokens: number): void {
    const previous = this.averages.get(model);
    const next = previous === undefined ? tokens : previous + ALPHA * (tokens - previous);
    this.averages.set(model, next);
    this.redis.hset(this.key, model, next.toFixed(1)).catch(() => undefined);
  }
}
