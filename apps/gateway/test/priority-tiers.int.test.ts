import type { PriorityTier, StatusRecord } from "@chorus/contracts";
import request from "supertest";
import { defaultRequest, describeWithModel } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { finalRecord } from "../../../test-support/records.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { waitFor } from "../../../test-support/wait-for.js";
import { submittedId } from "../../../test-support/response-body.js";
import { startStartOrderWorker, type StartOrderWorker } from "../../../test-support/start-order.js";
import { loadFixtureEngine } from "../../../test-support/worker.js";

/**
 * Priority tiers: a key's tier weighs its requests' turns (high: a half per turn of work, normal: one,
 * low: two), so while keys of several tiers have requests waiting, a high key starts twice the work of
 * a normal one and a low key half, and none stops progressing. Short requests (one turn each) make
 * the shares countable.
 */
let gw: TestGateway;
let engine: Awaited<ReturnType<typeof loadFixtureEngine>> | undefined;
const workers: StartOrderWorker[] = [];

const ADMIN_TOKEN = "admin-token-for-tier-tests-0123456789";
const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };

beforeEach(async () => {
  gw = await startTestGateway(uniquePrefix("priority-tiers"), { ADMIN_TOKEN });
});
afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.close();
  await gw.close();
});
afterAll(async () => {
  await engine?.close();
});

const shortRequest = () => ({ ...defaultRequest(), samplingParams: { max_tokens: 8 } });
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

const submit = async (key: string): Promise<string> => {
  const res = await request(gw.app).post("/api/text/default").set(bearer(key)).send(shortRequest());
  expect(res.status).toBe(200);
  return submittedId(res);
};
const positionOf = async (key: string, id: string): Promise<number> =>
  ((await request(gw.app).get(`/api/v2/status/${id}`).set(bearer(key))).body as StatusRecord).queuePosition!;

/** One key per tier, each submitting `each` short requests in turn (high, normal, low, high, …). */
async function floodByTier(
  each: number,
): Promise<{ keys: Record<PriorityTier, string>; tierOf: Map<string, PriorityTier> }> {
  const keys = {
    high: await gw.createKey({ priority: "high" }),
    normal: await gw.createKey(),
    low: await gw.createKey({ priority: "low" }),
  };
  const tierOf = new Map<string, PriorityTier>();
  for (let i = 0; i < each; i++)
    for (const tier of ["high", "normal", "low"] as const) tierOf.set(await submit(keys[tier]), tier);
  return { keys, tierOf };
}

/** The tiers of the waiting requests in their queue order (queuePosition 0 first). */
async function tiersInQueueOrder(keys: Record<PriorityTier, string>, tierOf: Map<string, PriorityTier>) {
  const placed = await Promise.all(
    [...tierOf].map(async ([id, tier]) => ({ id, tier, position: await positionOf(keys[tier], id) })),
  );
  return placed.sort((a, b) => a.position - b.position);
}

const count = (tiers: PriorityTier[], tier: PriorityTier) => tiers.filter((t) => t === tier).length;

describe("priority tiers (no worker yet: the queue as it stands)", () => {
  it("when a high, a normal and a low key each have twelve requests waiting, then the queue gives them starts in the ratio 4:2:1 and the low key keeps its place", async () => {
    const { keys, tierOf } = await floodByTier(12);
    const order = await tiersInQueueOrder(keys, tierOf);
    expect(order.map((entry) => entry.position)).toEqual([...order.keys()]);
    // Turns 1-4: the high key's positions 1, 1.5, … 4 (seven requests), the normal key's 1-4, the low key's 1 and 3.
    const firstThirteen = order.slice(0, 13).map((entry) => entry.tier);
    expect([count(firstThirteen, "high"), count(firstThirteen, "normal"), count(firstThirteen, "low")]).toEqual([
      7, 4, 2,
    ]);
    // Starvation guard: the low key's k-th request is among the first 7k (its turn 2k - 1).
    const lowPlaces = order.flatMap((entry, place) => (entry.tier === "low" ? [place] : []));
    lowPlaces.forEach((place, k) => expect(place).toBeLessThan(7 * (k + 1)));
  });

  it("when a key's tier changes, then its next request is weighed by the new tier", async () => {
    const { id, key } = await gw.createKeyWithSecrets({ priority: "low" });
    const patched = await request(gw.app).patch(`/admin/keys/${id}`).set(admin).send({ priority: "high" });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id, priority: "high" });
    gw.deps.keyLookup.forget(id);
    const other = await gw.createKey();
    const first = [await submit(key), await submit(key), await submit(key)];
    const single = await submit(other);
    // High: the key's three requests at positions 1, 1.5 and 2 (turns 1, 2, 2); the other key's joins at turn 1.
    expect(await Promise.all(first.map((id) => positionOf(key, id)))).toEqual([0, 2, 3]);
    expect(await positionOf(other, single)).toBe(1);
  });

  it("when an admin sends an unknown tier, then 400 names the field and nothing changes", async () => {
    const { id } = await gw.createKeyWithSecrets();
    const refused = await request(gw.app).patch(`/admin/keys/${id}`).set(admin).send({ priority: "urgent" });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain("priority");
    const created = await request(gw.app).post("/admin/keys").set(admin).send({ name: "tiered", priority: "top" });
    expect(created.status).toBe(400);
    const listed = await request(gw.app).get("/admin/keys").set(admin);
    expect((listed.body as { data: { id: string; priority: string }[] }).data.find((k) => k.id === id)?.priority).toBe(
      "normal",
    );
  });
});

describeWithModel("priority tiers with the real worker", () => {
  it("when three tiers flood one slot, then jobs start in the queue's order, each once, on the first attempt", async () => {
    const { keys, tierOf } = await floodByTier(6);
    const expected = (await tiersInQueueOrder(keys, tierOf)).map((entry) => entry.id);
    engine ??= await loadFixtureEngine(2);
    const worker = await startStartOrderWorker(gw.prefix, gw.deps.keys, engine, 1);
    workers.push(worker);
    const { started } = worker;
    const records = [];
    for (const [id, tier] of tierOf) records.push(await finalRecord(gw.app, keys[tier], id));
    expect(records.filter((record) => record.status !== "completed")).toEqual([]);
    expect(started).toEqual(expected);
    // BullMQ marks a job completed just after its record turns final: read each once it has.
    const attempts = await Promise.all(
      expected.map((id) =>
        waitFor(`job ${id} completed in BullMQ`, async () => {
          const job = await gw.deps.queues[0]!.getJob(id);
          return job?.finishedOn ? job.attemptsMade : undefined;
        }),
      ),
    );
    expect(attempts).toEqual(expected.map(() => 1));
  }, 240_000);
});
