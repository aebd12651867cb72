import { QUEUE_TIMEOUT_ERROR, type StatusRecord } from "@chorus/contracts";
import request from "supertest";
import { defaultRequest, describeWithModel, sleep } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { testLogger } from "../../../test-support/logger.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { submittedId } from "../../../test-support/response-body.js";
import { waitFor } from "../../../test-support/wait-for.js";
import { loadFixtureEngine, startTestWorker, type LlmEngine, type TestWorker } from "../../../test-support/worker.js";
import { QueueDeadlineSweeper } from "../src/records/queue-deadline.sweeper.js";
import { countingEngine } from "../../../test-support/counting-engine.js";

describeWithModel("a queue deadline at the worker (real worker, stories260K-chatml)", () => {
  let prefix: string;
  let gw: TestGateway;
  let key: string;
  let fixture: LlmEngine;
  let worker: TestWorker | null = null;
  beforeAll(async () => {
    fixture = await loadFixtureEngine();
  }, 60_000);
  afterAll(() => fixture.close());
  beforeEach(async () => {
    prefix = uniquePrefix("queue-deadline-worker");
    gw = await startTestGateway(prefix);
    key = await gw.createKey();
  });
  afterEach(async () => {
    await worker?.close();
    worker = null;
    await gw.close();
  });

  const submit = async (body: object) =>
    submittedId(await request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).send(body));
  const status = async (id: string) =>
    (await request(gw.app).get(`/api/v2/status/${id}`).auth(key, { type: "bearer" })).body as StatusRecord;
  const finalStatus = (id: string) =>
    waitFor(`request ${id} final`, async () => ((r) => (r.status === "processing" ? null : r))(await status(id)));
  const sweeper = (onExpired: () => void = () => undefined) =>
    new QueueDeadlineSweeper({
      connection: gw.deps.redis,
      keys: gw.deps.keys,
      statuses: gw.deps.statuses,
      logger: testLogger("sweep"),
      removeJob: (id) => gw.deps.queues[0]!.remove(id),
      onExpired,
    });

  it("when no worker starts a request before its deadline, then the sweep ends it as queue_timeout, takes its job out of the queue, and it never runs", async () => {
    const late = await submit({ ...defaultRequest(), maxQueueMs: 200 });
    const onTime = await submit({ ...defaultRequest("Tell me about a dog."), maxQueueMs: 60_000 });
    await sleep(300);
    let expired = 0;
    expect(await sweeper(() => void expired++).sweepOnce()).toBe(1);
    expect(expired).toBe(1);
    expect(await status(late)).toMatchObject({
      status: "error",
      errorCode: "queue_timeout",
      error: QUEUE_TIMEOUT_ERROR,
    });
    expect(await gw.deps.queues[0]!.getJob(late)).toBeUndefined();

    const counting = countingEngine(fixture);
    worker = await startTestWorker(prefix, counting.engine);
    expect(await finalStatus(onTime)).toMatchObject({ status: "completed" });
    expect(counting.calls()).toBe(1);
    expect(await status(late)).toMatchObject({ status: "error", errorCode: "queue_timeout" });
  }, 60_000);

  it("when a worker takes a job past its deadline before any sweep, then it ends it as queue_timeout without asking the engine", async () => {
    const late = await submit({ ...defaultRequest(), maxQueueMs: 150 });
    await sleep(250);
    const counting = countingEngine(fixture);
    worker = await startTestWorker(prefix, counting.engine);
    expect(await finalStatus(late)).toMatchObject({ status: "error", errorCode: "queue_timeout" });
    expect(counting.calls()).toBe(0);
  }, 60_000);

  it("when a worker has started the request before its deadline, then a later sweep leaves it to finish", async () => {
    const started = await submit({ ...defaultRequest(), maxQueueMs: 150 });
    expect(await gw.deps.statuses.markStarted(started)).toBe("processing");
    await sleep(250);
    expect(await sweeper().sweepOnce()).toBe(0);
    expect((await status(started)).status).toBe("processing");
    expect(await gw.deps.redis.zcard(gw.deps.keys.textQueueDeadlines())).toBe(0);
  });

  it("when a burst with deadlines it can meet runs, then every request completes on its first attempt", async () => {
    const counting = countingEngine(fixture);
    worker = await startTestWorker(prefix, counting.engine);
    const failedAttempts: string[] = [];
    for (const w of worker.workers) w.on("failed", (job, error) => failedAttempts.push(`${job?.id}: ${error.message}`));
    // More than the worker's two slots: most wait in the queue, each with a deadline it meets.
    const ids = await Promise.all(
      Array.from({ length: 6 }, (_, i) => submit({ ...defaultRequest(`Story number ${i}.`), maxQueueMs: 60_000 })),
    );
    for (const id of ids) expect(await finalStatus(id)).toMatchObject({ status: "completed" });
    expect(failedAttempts).toEqual([]);
    expect(counting.calls()).toBe(6);
  }, 90_000);
});
