import type { StatusRecord } from "@chorus/contracts";
import { createTextQueue } from "@chorus/platform/queues";
import { LAST_TURN } from "@chorus/platform/scheduler";
import request from "supertest";
import { defaultRequest, describeWithModel } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { submittedId } from "../../../test-support/response-body.js";
import { startStartOrderWorker, type StartOrderWorker } from "../../../test-support/start-order.js";
import { loadFixtureEngine } from "../../../test-support/worker.js";
import { finalRecord } from "../../../test-support/records.js";

/**
 * Fair turns between API keys: workers take text requests in turns across keys, not in
 * arrival order; a waiting request's queue position is the number of requests that start before it.
 * The real worker on the fixture model; its StatusStore notes the order in which jobs really start.
 */
let gw: TestGateway;
let engine: Awaited<ReturnType<typeof loadFixtureEngine>> | undefined;
const workers: StartOrderWorker[] = [];

beforeEach(async () => {
  gw = await startTestGateway(uniquePrefix("fair-turns"));
});
afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.close();
  await gw.close();
});
afterAll(async () => {
  await engine?.close();
});

/** A short reply: turns are about order, not length. */
const shortRequest = () => ({ ...defaultRequest(), samplingParams: { max_tokens: 8 } });
const submit = async (key: string): Promise<string> => {
  const res = await request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).send(shortRequest());
  expect(res.status).toBe(200);
  return submittedId(res);
};
const status = async (key: string, id: string): Promise<StatusRecord> =>
  (await request(gw.app).get(`/api/v2/status/${id}`).auth(key, { type: "bearer" })).body as StatusRecord;

/** The real worker with `concurrency` slots; `started` fills with the ids in the order their jobs start. */
async function startWorker(concurrency: number): Promise<StartOrderWorker> {
  engine ??= await loadFixtureEngine(2);
  const worker = await startStartOrderWorker(gw.prefix, gw.deps.keys, engine, concurrency);
  workers.push(worker);
  return worker;
}

/** A text job's BullMQ priority, which is its request's turn. */
async function jobPriority(id: string): Promise<number> {
  const queue = createTextQueue(gw.deps.queueRedis, gw.deps.keys);
  try {
    return (await queue.getJob(id))!.opts.priority!;
  } finally {
    await queue.close();
  }
}

/** Waits for each record to turn final, woken by its final write (`Prefer: wait`), not by polling. */
async function untilFinal(key: string, ids: string[]): Promise<void> {
  for (const id of ids) await finalRecord(gw.app, key, id);
}

describe("fair turns between keys (no worker yet: the queue as it stands)", () => {
  it("when one key has ten requests waiting and another submits one, then the other's waits behind one of them, and the first key's keep their order", async () => {
    const [noisy, quiet] = [await gw.createKey(), await gw.createKey()];
    const flood = [];
    for (let i = 0; i < 10; i++) flood.push(await submit(noisy));
    const single = await submit(quiet);
    expect((await status(quiet, single)).queuePosition).toBe(1);
    const positions = await Promise.all(flood.map(async (id) => (await status(noisy, id)).queuePosition));
    expect(positions).toEqual([0, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // What an autoscaler counts (LLEN): every waiting request once; a cancelled one leaves it.
    expect(await gw.deps.redis.llen(gw.deps.keys.textJobsBacklog())).toBe(11);
    await request(gw.app).delete(`/api/v2/status/${single}`).auth(quiet, { type: "bearer" });
    // A second cancel (409) changes nothing
    await request(gw.app).delete(`/api/v2/status/${single}`).auth(quiet, { type: "bearer" });
    expect(await gw.deps.redis.llen(gw.deps.keys.textJobsBacklog())).toBe(10);
  });

  it("when the turns reach BullMQ's highest priority, then requests are still accepted, at that priority, in arrival order", async () => {
    const key = await gw.createKey();
    await gw.deps.redis.hset(gw.deps.keys.textQueueTurns(), "serving", LAST_TURN);
    const [first, second] = [await submit(key), await submit(key)];
    const queue = createTextQueue(gw.deps.queueRedis, gw.deps.keys);
    try {
      expect([(await queue.getJob(first))?.opts.priority, (await queue.getJob(second))?.opts.priority]).toEqual([
        LAST_TURN,
        LAST_TURN,
      ]);
      expect([(await status(key, first)).queuePosition, (await status(key, second)).queuePosition]).toEqual([0, 1]);
    } finally {
      await queue.close();
    }
  });
});

describeWithModel("fair turns with the real worker", () => {
  it("when three keys have requests waiting, then jobs start exactly in the order of their queue positions, turn by turn across keys", async () => {
    const keys = [await gw.createKey(), await gw.createKey(), await gw.createKey()];
    const owner = new Map<string, string>();
    for (const [k, count] of [8, 3, 1].entries()) {
      for (let i = 0; i < count; i++) owner.set(await submit(keys[k]!), keys[k]!);
    }
    const ids = [...owner.keys()];
    const positions = new Map(
      await Promise.all(ids.map(async (id) => [id, (await status(owner.get(id)!, id)).queuePosition!] as const)),
    );
    expect([...positions.values()].sort((a, b) => a - b)).toEqual(ids.map((_, i) => i));
    const byPosition = [...ids].sort((a, b) => positions.get(a)! - positions.get(b)!);
    // Turn 1: one of each key; turn 2: the first two keys; then the first key alone.
    expect(byPosition.map((id) => keys.indexOf(owner.get(id)!))).toEqual([0, 1, 2, 0, 1, 0, 1, 0, 0, 0, 0, 0]);

    const { started } = await startWorker(1);
    await untilFinal(
      keys[0]!,
      byPosition.filter((id) => owner.get(id) === keys[0]),
    );
    await untilFinal(
      keys[1]!,
      byPosition.filter((id) => owner.get(id) === keys[1]),
    );
    await untilFinal(
      keys[2]!,
      byPosition.filter((id) => owner.get(id) === keys[2]),
    );
    expect(started).toEqual(byPosition); // each started once, first attempt, in position order
    expect(await gw.deps.redis.llen(gw.deps.keys.textJobsBacklog())).toBe(0);
  }, 180_000);

  it("when a key floods a busy worker and another key then submits one request, then it starts after at most one request per slot, not after the flood", async () => {
    const [noisy, quiet] = [await gw.createKey(), await gw.createKey()];
    const slots = 2;
    // The flood is queued before the worker starts: submitted one by one to a running worker, a fast
    // machine ran all 30 before the other key's request came, and nothing was left to wait behind.
    const flood = [];
    for (let i = 0; i < 30; i++) flood.push(await submit(noisy));
    const { started, firstStart } = await startWorker(slots);
    await firstStart; // the worker is busy
    const startedBefore = started.length;
    const single = await submit(quiet);
    const startedAfter = started.length;
    // Its turn is its job's priority: one after the turn being served when it joined (the flood holds
    // turns 1..30; the test notes a start just before the worker moves the turn being served to it).
    const turn = await jobPriority(single);
    expect(turn).toBeGreaterThanOrEqual(startedBefore);
    expect(turn - 1).toBeLessThanOrEqual(startedAfter);
    await untilFinal(quiet, [single]);
    await untilFinal(noisy, flood);
    // Before it: the flood's turns up to its own (the one with its turn came first), and at most one
    // job per slot that a worker had already taken but not yet marked started when it joined.
    const floodStartedSinceItJoined = started.indexOf(single) - (turn - 1);
    expect(started.indexOf(single)).toBeGreaterThanOrEqual(Math.min(turn, flood.length));
    expect(floodStartedSinceItJoined).toBeLessThanOrEqual(slots);
    // Nothing lost or started twice; the flood in its own order.
    expect([...started].sort()).toEqual([...flood, single].sort());
    expect(started.filter((id) => id !== single)).toEqual(flood);
  }, 180_000);
});
