import { randomUUID } from "node:crypto";
import { redisTargetOf, type RedisTarget } from "@chorus/platform/redis";
import { Redis } from "ioredis";

/** Integration tests use this Redis (the machine's own by default) under a unique key prefix. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/**
 * The nodes of the private Redis Cluster the `cluster` jest project runs its suites on (set per test
 * file by test-support/cluster/on-redis-cluster.ts); undefined in every other project.
 */
const clusterNodes = (globalThis as { chorusTestRedisCluster?: string }).chorusTestRedisCluster;

/** Where the test services' Redis is: the cluster in the `cluster` project, else TEST_REDIS_URL. */
export const TEST_REDIS: RedisTarget = clusterNodes
  ? redisTargetOf({ REDIS_CLUSTER_NODES: clusterNodes })
  : { url: TEST_REDIS_URL };

/** TEST_REDIS as the settings that name it. */
export const TEST_REDIS_ENV: Record<string, string> = clusterNodes
  ? { REDIS_CLUSTER_NODES: clusterNodes }
  : { REDIS_URL: TEST_REDIS_URL };

export function uniquePrefix(label: string): string {
  return `test-${label}-${randomUUID().slice(0, 8)}`;
}

/**
 * Deletes every key under `prefix`, so a test run leaves the shared Redis as it found it. The
 * private cluster is not shared and is thrown away whole after the run: nothing to do there.
 */
export async function deleteKeysWithPrefix(target: string | RedisTarget, prefix: string): Promise<void> {
  if (typeof target !== "string" && !("url" in target)) return;
  const redis = new Redis(typeof target === "string" ? target : target.url, { maxRetriesPerRequest: 1 });
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 500);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
}
