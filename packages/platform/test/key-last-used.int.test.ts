import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { setTimeout as sleep } from "node:timers/promises";
import { KeyLastUsed } from "../src/api-keys/key-last-used.js";
import { createGatewayRedis, redisKeys, waitUntilReady } from "../src/redis/index.js";
import { deleteKeysWithPrefix, TEST_REDIS, uniquePrefix } from "../../../test-support/redis.js";

const prefix = uniquePrefix("last-used");
const keys = redisKeys(prefix);
const redis = createGatewayRedis(TEST_REDIS);
beforeAll(() => waitUntilReady(redis, 5000));
afterAll(async () => {
  redis.disconnect();
  await deleteKeysWithPrefix(TEST_REDIS, prefix);
});

/** The stored time once the write not awaited landed (or what is there after a moment). */
async function stored(keyId: string, expected: string): Promise<string | null> {
  for (let tries = 0; tries < 50; tries++) {
    const value = await redis.hget(keys.apiKeyLastUsed(), keyId);
    if (value === expected) return value;
    await sleep(10);
  }
  return redis.hget(keys.apiKeyLastUsed(), keyId);
}

describe("KeyLastUsed", () => {
  it("when a key is noted again within the interval, then nothing is written; after it, the new time is", async () => {
    const lastUsed = new KeyLastUsed(redis, keys, 60_000);
    const t0 = Date.parse("2026-06-01T10:00:00.000Z");
    lastUsed.note("key_a", t0);
    expect(await stored("key_a", "2026-06-01T10:00:00.000Z")).toBe("2026-06-01T10:00:00.000Z");
    lastUsed.note("key_a", t0 + 59_999);
    lastUsed.note("key_b", t0 + 59_999); // another key has its own interval
    expect(await stored("key_b", "2026-06-01T10:00:59.999Z")).toBe("2026-06-01T10:00:59.999Z");
    expect(await redis.hget(keys.apiKeyLastUsed(), "key_a")).toBe("2026-06-01T10:00:00.000Z");
    lastUsed.note("key_a", t0 + 60_000);
    expect(await stored("key_a", "2026-06-01T10:01:00.000Z")).toBe("2026-06-01T10:01:00.000Z");
  });
});
