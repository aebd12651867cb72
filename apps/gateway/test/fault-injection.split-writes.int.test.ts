import { validateGenerationRequest, type ModelId } from "@chorus/contracts";
import { RequestIndex, StatusStore, type FinalRecordHook } from "@chorus/platform/scheduler";
import { defaultRequest } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";

/**
 * A status record and its queue's sets are written by two scripts (they sit in different slots of a
 * Redis Cluster). Here the queue's side fails while the record's succeeds (its sets replaced by a
 * string: every command on them is refused), as when the node holding the queue fails over: the
 * outcome must follow the record, and nothing may stay `processing` for a client who got an error.
 */
let gw: TestGateway;
const MODEL: ModelId = "default";

beforeAll(async () => {
  gw = await startTestGateway(uniquePrefix("split-writes"));
});
afterAll(() => gw.close());

/** Runs `body` while the text queue's waiting and unfinished sets cannot be written. */
async function withQueueSideRefused<T>(body: () => Promise<T>): Promise<T> {
  const { redis, keys } = gw.deps;
  const sets = [keys.textJobsWaiting(), keys.textRequestsUnfinished()];
  const saved = await Promise.all(sets.map((key) => redis.zrange(key, 0, -1, "WITHSCORES")));
  await Promise.all(sets.map((key) => redis.set(key, "refused")));
  try {
    return await body();
  } finally {
    await Promise.all(sets.map((key) => redis.del(key)));
    for (const [i, key] of sets.entries()) {
      // ZRANGE WITHSCORES gives member, score pairs; ZADD takes score, member.
      const flat = saved[i] ?? [];
      const pairs = flat.flatMap((value, j) => (j % 2 === 0 ? [flat[j + 1] as string, value] : []));
      if (pairs.length > 0) await redis.zadd(key, ...pairs);
    }
  }
}

describe("writes split between a record and its queue, the queue's side failing", () => {
  it("when a record is finished, then it turns final, says so, and hands its webhook on, though its id could not leave the sets", async () => {
    const finished: string[] = [];
    const hook: FinalRecordHook = {
      finished: ({ requestId, url }) => {
        finished.push(`${requestId} ${url}`);
        return Promise.resolve();
      },
    };
    const statuses = new StatusStore(gw.deps.queueRedis, gw.deps.keys, 3600, hook);
    await statuses.create("finish-1", "key_x", MODEL, Date.now(), { url: "https://hooks.example.com/x" });
    const written = await withQueueSideRefused(() => statuses.fail("finish-1", "cancelled"));
    expect(written).toBe(true);
    expect((await statuses.get("finish-1"))?.record).toEqual({
      status: "error",
      error: "cancelled",
      errorCode: "cancelled",
      finishReason: "cancelled",
    });
    expect(finished).toEqual(["finish-1 https://hooks.example.com/x"]);
    // The id is still in the unfinished set: the lost-job sweep takes it out (its record is final).
    expect(await gw.deps.redis.zscore(gw.deps.keys.textRequestsUnfinished(), "finish-1")).not.toBeNull();
  });

  it("when a record is started, then it is started, though its id could not leave the waiting set", async () => {
    await gw.deps.statuses.create("start-1", "key_x", MODEL);
    expect(await withQueueSideRefused(() => gw.deps.statuses.markStarted("start-1"))).toBe("processing");
    const started = await gw.deps.statuses.get("start-1");
    expect(started?.record.queuePosition).toBeUndefined();
  });

  it("when a submit cannot join the queue, then the client gets the error and nothing of its record is written (it would not be listed as processing)", async () => {
    const keyId = "key_split";
    await expect(
      withQueueSideRefused(() =>
        gw.deps.textJobs.submit({
          keyId,
          model: MODEL,
          request: validateGenerationRequest(MODEL, defaultRequest()),
          inFlightCap: 100,
        }),
      ),
    ).rejects.toThrow(/WRONGTYPE/);
    // The queue is joined first on every topology (it hands out the job's turn): no record was written.
    const { entries } = await new RequestIndex(gw.deps.redis, gw.deps.keys).after(keyId, null, 10);
    expect(entries).toEqual([]);
  });
});
