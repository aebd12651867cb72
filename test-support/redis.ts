import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";

/** Integration tests use this Redis (the machine's own by default) under a unique key prefix. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

export function uniquePrefix(label: string): string {
  return `test-${label}-${randomUUID().slice(0, 8)}`;
}

/** Deletes every key under `prefix`, so a test run leaves the shared Redis as it found it. */
export async function deleteKeysWithPrefix(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
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
