import type { GenerateTextJob } from "@chorus/contracts";
import { createWorkerRedis, redisKeys, type RedisClient } from "@chorus/platform/redis";
import { jest } from "@jest/globals";
import { DelayedError, type Job } from "bullmq";
import { testLogger } from "../../../test-support/logger.js";
import { TEST_REDIS, uniquePrefix } from "../../../test-support/redis.js";
import { CacheRouting } from "../src/routing/cache-routing.js";
import type { RoutingStore } from "../src/routing/routing-store.js";

const readOnly = () => new Error("READONLY You can't write against a read only replica.");

/** A shared copy that steps aside survives Redis errors: injected here by test doubles of the store and job. */
describe("stepping aside when Redis fails (injected errors)", () => {
  let redis: RedisClient;
  beforeAll(() => {
    redis = createWorkerRedis(TEST_REDIS);
  });
  afterAll(() => redis.disconnect());

  it("when the claim and then the move to delayed fail once, then the copy still steps aside and the job spends no attempt", async () => {
    const failingStore: Pick<RoutingStore, "claimShared" | "leave"> = {
      claimShared: () => Promise.reject(readOnly()),
      leave: () => Promise.resolve(),
    };
    const routing = new CacheRouting(
      {
        connection: redis,
        keys: redisKeys(uniquePrefix("step-aside")),
        store: failingStore as RoutingStore,
        logger: testLogger("worker"),
      },
      { workerId: "w1", slots: 1, maxWaitMs: 1000, watchIntervalMs: 1000, heartbeatMs: 1000 },
    );
    const moveToDelayed = jest.fn<() => Promise<void>>().mockRejectedValueOnce(readOnly()).mockResolvedValue(undefined);
    const engineCalls = jest.fn(() => Promise.resolve(undefined));
    const job = { id: "j1", data: { requestId: "j1" }, moveToDelayed } as unknown as Job<GenerateTextJob>;

    await expect(routing.sharedProcessor(engineCalls)(job, "token")).rejects.toBeInstanceOf(DelayedError);
    expect(moveToDelayed).toHaveBeenCalledTimes(2);
    expect(engineCalls).not.toHaveBeenCalled();
    await routing.stop();
  });
});
