import { RedisStore } from "rate-limit-redis";

/**
 * rate-limit-redis loads its Lua scripts once, when the limiter is created. If Redis is not reachable
 * at that moment the stored promise stays rejected, and every later request would fail even after
 * Redis is back. On a failure this store reloads the script and, if that works, tries once more;
 * if Redis is really down the original error goes on (and becomes a 503).
 */
export class ResilientRedisStore extends RedisStore {
  // Not an async function: every limited request passes here, and each async layer costs a promise.
  override increment(key: string): ReturnType<RedisStore["increment"]> {
    return super.increment(key).catch((error: unknown) => this.reloadAndRetry(key, error));
  }

  private async reloadAndRetry(key: string, error: unknown): ReturnType<RedisStore["increment"]> {
    this.incrementScriptSha = this.loadIncrementScript();
    this.incrementScriptSha.catch(() => undefined);
    const reloaded = await this.incrementScriptSha.then(
      () => true,
      () => false,
    );
    if (!reloaded) throw error;
    return super.increment(key);
  }
}
