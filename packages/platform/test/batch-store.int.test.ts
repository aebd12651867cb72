import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { BatchLineCounter, BatchStore, batchLineRef, batchLineRequestId } from "../src/batches/index.js";
import { createWorkerRedis, redisKeys, waitUntilReady } from "../src/redis/index.js";
import { deleteKeysWithPrefix, TEST_REDIS, uniquePrefix } from "../../../test-support/redis.js";
import { waitFor } from "../../../test-support/wait-for.js";

const prefix = uniquePrefix("batch-store");
const keys = redisKeys(prefix);
const redis = createWorkerRedis(TEST_REDIS);
const subscriber = createWorkerRedis(TEST_REDIS);
const heard: string[] = [];
beforeAll(async () => {
  await Promise.all([waitUntilReady(redis, 5000), waitUntilReady(subscriber, 5000)]);
  subscriber.on("message", (_channel: string, message: string) => heard.push(message));
  await subscriber.subscribe(keys.batchFeedChannel());
});
afterAll(async () => {
  redis.disconnect();
  subscriber.disconnect();
  await deleteKeysWithPrefix(TEST_REDIS, prefix);
});

describe("BatchLineCounter", () => {
  it("when a fed line ends, then it is counted once, leaves the fed set, and the feeders hear of it in the same call (once)", async () => {
    const batches = new BatchStore(redis, keys);
    const counter = new BatchLineCounter(batches, redis, keys, 3600);
    const now = Math.floor(Date.now() / 1000);
    const batch = { id: "b1", keyId: "key_1", endpoint: "/v1/chat/completions" as const, inputFileId: "file-1" };
    await batches.create({ ...batch, metadata: null, createdAt: now, expiresAt: now + 86_400 }, ["{}", "{}"]);
    expect(await batches.claim("b1", 2)).toEqual([
      { index: 0, text: "{}" },
      { index: 1, text: "{}" },
    ]);
    await redis.hset(keys.status(batchLineRequestId("b1", 0)), "status", "completed");

    await counter.ended(batchLineRef("b1", 0), batchLineRequestId("b1", 0), true);
    await waitFor("the feeders told", () => heard.length > 0);
    // Told after the fed set let the line go: a feeder stepping on the message finds room for one more.
    expect([heard, await batches.fed("b1")]).toEqual([["b1"], [1]]);
    expect(await redis.ttl(keys.status(batchLineRequestId("b1", 0)))).toBeGreaterThan(3600);

    await counter.ended(batchLineRef("b1", 0), batchLineRequestId("b1", 0), true);
    await batches.countLine("b1", 1, false, "");
    const stored = await batches.get("b1");
    expect([stored?.completed, stored?.failed, stored?.status]).toEqual([1, 1, "finalizing"]);
    // Neither the second telling of line 0 nor a feeder's own count (no nudge) publishes again.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(heard).toEqual(["b1"]);
  });
});

describe("BatchStore's feeding steps", () => {
  const batches = new BatchStore(redis, keys);
  const now = Math.floor(Date.now() / 1000);
  const newBatch = (id: string) => ({
    id,
    keyId: "key_1",
    endpoint: "/v1/chat/completions" as const,
    inputFileId: "file-1",
    metadata: null,
    createdAt: now,
    expiresAt: now + 86_400,
  });

  it("when lines are claimed, then each comes once with its text, and no more than the window is fed", async () => {
    await batches.create(newBatch("b2"), ['{"a":0}', '{"a":1}', '{"a":2}']);
    expect(await batches.claim("b2", 2)).toEqual([
      { index: 0, text: '{"a":0}' },
      { index: 1, text: '{"a":1}' },
    ]);
    expect(await batches.claim("b2", 2)).toEqual([]);
    await batches.countLine("b2", 0, true);
    expect(await batches.claim("b2", 2)).toEqual([{ index: 2, text: '{"a":2}' }]);
  });

  it("when the input lines are gone, then a claimed line comes without text", async () => {
    await batches.create(newBatch("b3"), ["{}"]);
    await redis.del(keys.batchLines("b3"));
    expect(await batches.claim("b3", 1)).toEqual([{ index: 0, text: null }]);
  });

  it("when a feeder unlocks a lock another feeder took after its own expired, then that lock stays", async () => {
    expect(await batches.lock("b4", "feeder-a", 30_000)).toBe(true);
    expect(await batches.lock("b4", "feeder-b", 30_000)).toBe(false);
    await redis.del(keys.batchLock("b4")); // feeder-a's hold ran out
    expect(await batches.lock("b4", "feeder-b", 30_000)).toBe(true);
    await batches.unlock("b4", "feeder-a");
    expect(await batches.lock("b4", "feeder-a", 30_000)).toBe(false);
    await batches.unlock("b4", "feeder-b");
    expect(await batches.lock("b4", "feeder-a", 30_000)).toBe(true);
  });
});
