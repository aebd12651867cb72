import { createWorkerRedis, redactRedisUrl, redisKeys } from "@chorus/platform/redis";
import { liveWorkerCount } from "@chorus/platform/scheduler";

/**
 * Workers already announcing themselves on this Redis under this prefix (asked before this
 * launcher starts its own). Null when Redis cannot be asked: the apps then say why themselves.
 */
export async function workersAlreadyOnPrefix(url: string, prefix: string): Promise<number | null> {
  const redis = createWorkerRedis(url, { maxRetriesPerRequest: 1, retryStrategy: () => null });
  redis.on("error", () => undefined); // the count below fails with it
  try {
    return await liveWorkerCount(redis, redisKeys(prefix));
  } catch {
    return null;
  } finally {
    redis.disconnect();
  }
}

/** Why npm start refuses to join a prefix that another deployment's workers serve, and the ways out. */
export function sharedPrefixRefusal(url: string, prefix: string, workers: number): string {
  return [
    `the Redis at ${redactRedisUrl(url)} already has ${workers} live worker(s) under the key prefix '${prefix}', from another deployment`,
    "(another npm start, another checkout, or a service on this Redis): they would take this one's jobs, and `keys` here would change their API keys.",
    "Set REDIS_PREFIX to a prefix of your own (e.g. REDIS_PREFIX=chorus-mine npm start), or start a private Redis (npm start -- --private-redis),",
    "or pass --share-prefix to join those workers on purpose. (A worker killed outright keeps its place for up to 30 s.)",
  ].join("\n");
}
