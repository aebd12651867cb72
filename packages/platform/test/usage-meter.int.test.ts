import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createWorkerRedis, redisKeys, waitUntilReady } from "../src/redis/index.js";
import { UsageMeter, UsageReader, USAGE_KEEP_SECONDS, type FinishedJob } from "../src/usage/index.js";
import { deleteKeysWithPrefix, TEST_REDIS, uniquePrefix } from "../../../test-support/redis.js";
import { testLogger } from "../../../test-support/logger.js";

const prefix = uniquePrefix("usage-meter");
const keys = redisKeys(prefix);
const redis = createWorkerRedis(TEST_REDIS);
const logger = testLogger("usage");
const DAY1 = Date.parse("2026-03-01T23:59:59.000Z");
const DAY2 = Date.parse("2026-03-02T00:00:01.000Z");
beforeAll(() => waitUntilReady(redis, 5000));
afterAll(async () => {
  redis.disconnect();
  await deleteKeysWithPrefix(TEST_REDIS, prefix);
});

const completion = (jobId: string, keyId: string, at: number, model = "default"): FinishedJob => ({
  jobId,
  keyId,
  model,
  end: "completed",
  promptTokens: 30,
  cachedPromptTokens: 12,
  completionTokens: 7,
  at,
});

const march = { from: "2026-03-01", to: "2026-03-31" } as const;

describe("UsageMeter", () => {
  it("when the same job is metered twice (a retry, a take-over), then its key's usage counts it once", async () => {
    const meter = new UsageMeter(redis, keys, logger);
    const counted: string[] = [];
    meter.onCounted = (job) => counted.push(job.jobId);
    expect(await meter.record(completion("job-1", "key_twice", DAY1))).toBe(true);
    expect(await meter.record({ ...completion("job-1", "key_twice", DAY1), completionTokens: 99 })).toBe(false);
    expect(counted).toEqual(["job-1"]);
    const report = await new UsageReader(redis, keys).report("key_twice", { ...march, groupBy: "day" });
    expect(report.buckets).toEqual([
      {
        day: "2026-03-01",
        requests: { completed: 1, error: 0, cancelled: 0 },
        promptTokens: 30,
        cachedPromptTokens: 12,
        completionTokens: 7,
        characters: 0,
        audioSeconds: 0,
      },
    ]);
  });

  it("when jobs end on two UTC days with two models, then by day and by model each bucket has its own, and the totals agree", async () => {
    const meter = new UsageMeter(redis, keys, logger);
    await meter.record(completion("a", "key_two", DAY1, "default"));
    await meter.record(completion("b", "key_two", DAY2, "witch"));
    await meter.record({ jobId: "c", keyId: "key_two", model: "witch", end: "cancelled", at: DAY2 });
    await meter.record({
      jobId: "d",
      keyId: "key_two",
      model: "espeak-ng",
      end: "completed",
      at: DAY2,
      characters: 41,
      audioSeconds: 2.3456,
    });
    await meter.record({ jobId: "e", keyId: "key_two", model: "espeak-ng", end: "error", at: DAY2 });
    const reader = new UsageReader(redis, keys);
    const days = await reader.report("key_two", { ...march, groupBy: "day" });
    const models = await reader.report("key_two", { ...march, groupBy: "model" });
    expect(days.buckets.map((b) => ["day" in b && b.day, b.requests, b.completionTokens, b.audioSeconds])).toEqual([
      ["2026-03-01", { completed: 1, error: 0, cancelled: 0 }, 7, 0],
      ["2026-03-02", { completed: 2, error: 1, cancelled: 1 }, 7, 2.346],
    ]);
    expect(models.buckets.map((b) => ["model" in b && b.model, b.requests, b.characters])).toEqual([
      ["default", { completed: 1, error: 0, cancelled: 0 }, 0],
      ["espeak-ng", { completed: 1, error: 1, cancelled: 0 }, 41],
      ["witch", { completed: 1, error: 0, cancelled: 1 }, 0],
    ]);
    expect(models.total).toEqual(days.total);
    expect(days.total).toMatchObject({ promptTokens: 60, cachedPromptTokens: 24, completionTokens: 14 });
    // Another key's usage is its own.
    expect((await reader.report("key_other", { ...march, groupBy: "day" })).buckets).toEqual([]);
  });

  it("when the metering rides in a batch with other commands, then one exec counts it, and the day's hash keeps 400 days", async () => {
    const meter = new UsageMeter(redis, keys, logger);
    const job = completion("batched", "key_batch", DAY1);
    const batch = meter.meterIn(redis.pipeline(), job).ping();
    const replies = (await batch.exec()) ?? [];
    expect(replies.map(([error]) => error)).toEqual([null, null]);
    expect(meter.noteReply(job, replies[0]?.[1])).toBe(true);
    const again = (await meter.meterIn(redis.pipeline(), job).exec()) ?? [];
    expect(again[0]?.[1]).toBe(0);
    // What rides along in record()'s own batch (another per-key command) is sent with the metering.
    const ridden = keys.apiKeyUsage("key_batch", "2026-03-05");
    const along = completion("along", "key_batch", DAY2);
    expect(await meter.record(along, (b) => void b.hset(ridden, "settled", "1"))).toBe(true);
    expect(await redis.hget(ridden, "settled")).toBe("1");
    const ttl = await redis.ttl(keys.apiKeyUsage("key_batch", "2026-03-01"));
    expect(ttl).toBeGreaterThan(USAGE_KEEP_SECONDS - 60);
    expect(ttl).toBeLessThanOrEqual(USAGE_KEEP_SECONDS);
  });
});
