import type { GenerateTextJob } from "@chorus/contracts";
import { createWorkerRedis, redisKeys, type RedisClient } from "@chorus/platform/redis";
import { jest } from "@jest/globals";
import { DelayedError, type Job } from "bullmq";
import { testLogger } from "../../../test-support/logger.js";
import { TEST_REDIS, uniquePrefix } from "../../../test-support/redis.js";
import { CacheRouting } from "../src/routing/cache-routing.js";
import type { RoutingStore } from "../src/routing/routing-store.js";

/** More failures in a row than the six tries (about 4 s) after which a step-aside once failed the attempt. */
const FAILURES = 7;

const readOnly = () => new Error("READONLY You can't write against a read only replica.");

/** A shared copy that steps aside survives Redis errors: injected here by test doubles of the store and job. */
describe("stepping aside when Redis fails (injected errors)", () => {
  let redis: RedisClient;
  beforeAll(() => {
    redis = createWorkerRedis(TEST_REDIS);
  });
  afterAll(() => redis.disconnect());

  function routingOn(store: RoutingStore): CacheRouting {
    return new CacheRouting(
      { connection: redis, keys: redisKeys(uniquePrefix("step-aside")), store, logger: testLogger("worker") },
      { workerId: "w1", slots: 1, maxWaitMs: 1000, watchIntervalMs: 1000, heartbeatMs: 1000, leaseTtlMs: 3000 },
    );
  }

  it("when the claim and then the move to delayed fail, more times than a few seconds of tries, then the copy still steps aside and the job spends no attempt", async () => {
    const failingStore: Pick<RoutingStore, "claimShared" | "leave"> = {
      claimShared: () => Promise.reject(readOnly()),
      leave: () => Promise.resolve(),
    };
    const routing = routingOn(failingStore as RoutingStore);
    const moveToDelayed = jest.fn<() => Promise<void>>();
    for (let i = 0; i < FAILURES; i++) moveToDelayed.mockRejectedValueOnce(readOnly());
    moveToDelayed.mockResolvedValue(undefined);
    const engineCalls = jest.fn(() => Promise.resolve(undefined));
    const job = { id: "j1", data: { requestId: "j1" }, moveToDelayed } as unknown as Job<GenerateTextJob>;

    await expect(routing.sharedProcessor(engineCalls)(job, "token")).rejects.toBeInstanceOf(DelayedError);
    expect(moveToDelayed).toHaveBeenCalledTimes(FAILURES + 1);
    expect(engineCalls).not.toHaveBeenCalled();
    await routing.stop();
  }, 30_000);

  it("when the job is no longer this worker's (its lock lapsed), then stepping aside stops at once without failing it", async () => {
    const store: Pick<RoutingStore, "claimShared" | "leave"> = {
      claimShared: () => Promise.reject(readOnly()),
      leave: () => Promise.resolve(),
    };
    const routing = routingOn(store as RoutingStore);
    const lockGone = Object.assign(new Error("Missing lock for job j2. moveToDelayed"), { code: -2 });
    const moveToDelayed = jest.fn<() => Promise<void>>().mockRejectedValue(lockGone);
    const engineCalls = jest.fn(() => Promise.resolve(undefined));
    const job = { id: "j2", data: { requestId: "j2" }, moveToDelayed } as unknown as Job<GenerateTextJob>;

    await expect(routing.sharedProcessor(engineCalls)(job, "token")).rejects.toBeInstanceOf(DelayedError);
    expect(moveToDelayed).toHaveBeenCalledTimes(1);
    expect(engineCalls).not.toHaveBeenCalled();
    await routing.stop();
  });
});
