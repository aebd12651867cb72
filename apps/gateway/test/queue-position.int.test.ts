import type { StatusRecord } from "@chorus/contracts";
import { JobTimeStats, workerSlotsEntry } from "@chorus/platform/scheduler";
import request from "supertest";
import { defaultRequest } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { submittedId } from "../../../test-support/response-body.js";

let gw: TestGateway;
let key: string;
beforeAll(async () => {
  gw = await startTestGateway(uniquePrefix("queuepos"));
  key = await gw.createKey();
});
afterAll(() => gw.close());

const submit = async () =>
  submittedId(await request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).send(defaultRequest()));
const status = async (id: string) =>
  (await request(gw.app).get(`/api/v2/status/${id}`).auth(key, { type: "bearer" })).body as StatusRecord;

describe("a job waiting in the queue (no worker running)", () => {
  it("when jobs queue up, then each record says how many are ahead, and ETA appears once workers have measured job times", async () => {
    const ids = [await submit(), await submit(), await submit()];
    expect(await Promise.all(ids.map(async (id) => (await status(id)).queuePosition))).toEqual([0, 1, 2]);
    expect((await status(ids[2]!)).estimatedTimeRemaining).toBeUndefined();

    // Two live workers with 2 slots in all, both busy, jobs taking 2 s on average: the third job
    // starts in the second round on the first slot to free (1 + 1/3 job times from now), then runs
    // one: 2 * (1 + 1 + 1/3) = 4.7 s.
    await new JobTimeStats(gw.deps.redis, gw.deps.keys.textJobStats()).record(2);
    const [live, gone] = [Date.now() + 60_000, Date.now() - 1];
    await gw.deps.redis.hset(
      gw.deps.keys.workerSlots(),
      "w1",
      workerSlotsEntry(1, live),
      "w2",
      workerSlotsEntry(1, live),
      "dead",
      workerSlotsEntry(8, gone),
    );
    expect(await status(ids[2]!)).toEqual({
      status: "processing",
      progress: 0,
      queuePosition: 2,
      estimatedTimeRemaining: 4.7,
    });

    // A cancelled waiting job leaves the queue: the jobs behind it move up.
    expect((await request(gw.app).delete(`/api/v2/status/${ids[0]}`).auth(key, { type: "bearer" })).status).toBe(200);
    expect((await status(ids[2]!)).queuePosition).toBe(1);
  });

  it("when a worker starts a job, then it no longer counts as queued", async () => {
    const [first, second] = [await submit(), await submit()];
    const before = (await status(second)).queuePosition!;
    expect(await gw.deps.statuses.markStarted(first)).toBe("processing");
    expect(await gw.deps.statuses.markStarted(first)).toBe("processing"); // a retry is not counted twice
    const started = await status(first);
    expect(started.queuePosition).toBeUndefined();
    expect((await status(second)).queuePosition).toBe(before - 1);
  });

  it("when a job starts whose record is gone (expired or never written), then nothing is written back and the queue positions are unchanged", async () => {
    const gone = "no-such-record";
    const waiting = await submit();
    const before = (await status(waiting)).queuePosition;
    expect(await gw.deps.statuses.markStarted(gone)).toBeNull();
    expect(await gw.deps.redis.exists(gw.deps.keys.status(gone))).toBe(0);
    expect((await status(waiting)).queuePosition).toBe(before);
  });
});
