import { jest } from "@jest/globals";
import { QUEUES, type StatusRecord } from "@chorus/contracts";
import { createMetrics, type WorkerMetrics } from "@chorus/platform/metrics";
import { createWorkerRedis, type RedisClient } from "@chorus/platform/redis";
import { StatusStore } from "@chorus/platform/scheduler";
import { Queue, UnrecoverableError, Worker } from "bullmq";
import request from "supertest";
import type { LlmEngine } from "../src/engines/llm/llm-engine.js";
import { LOST_ERROR, LostJobSweeper } from "../src/records/lost-job.sweeper.js";
import { defaultRequest, describeWithModel } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { testLogger } from "../../../test-support/logger.js";
import { TEST_REDIS, uniquePrefix } from "../../../test-support/redis.js";
import { submittedId } from "../../../test-support/response-body.js";
import { loadFixtureEngine, startTestWorker } from "../../../test-support/worker.js";
import { waitFor } from "../../../test-support/wait-for.js";

/**
 * Fault injection for records that could never change: jobs removed or
 * obliterated under their records, a failure no worker wrote, final writes that fail once. Each
 * test ends with the state of every accepted request: completed or error, never `processing`.
 */
let gw: TestGateway;
let key: string;
let connection: RedisClient;
let queue: Queue;
beforeAll(async () => {
  gw = await startTestGateway(uniquePrefix("fault-lost"));
  key = await gw.createKey({ limits: { text: 1000, status: 100_000 } });
  connection = createWorkerRedis(TEST_REDIS);
  queue = new Queue(QUEUES.text, { connection, prefix: gw.deps.keys.bullPrefix(QUEUES.text) });
});
afterAll(async () => {
  await queue.close();
  connection.disconnect();
  await gw.close();
});

const submit = async (body: object = defaultRequest()) =>
  submittedId(await request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).send(body));
const status = async (id: string) =>
  (await request(gw.app).get(`/api/v2/status/${id}`).auth(key, { type: "bearer" })).body as StatusRecord;
const lostCount = async (metrics: WorkerMetrics) => {
  const line = (await metrics.render())
    .split("\n")
    .find((l) => l.startsWith(`jobs_total{queue="${QUEUES.text}",outcome="lost"} `));
  return line === undefined ? 0 : Number(line.split(" ")[1]);
};

function sweeper(metrics: WorkerMetrics): LostJobSweeper {
  const statuses = new StatusStore(connection, gw.deps.keys, 3600);
  // No grace: every record in these tests was stored together with its job before the sweep.
  return new LostJobSweeper({
    connection,
    keys: gw.deps.keys,
    statuses,
    logger: testLogger("worker"),
    graceMs: 0,
    onLost: () => metrics.recordJob(QUEUES.text, "lost"),
  });
}
/** As if the sweep interval had passed: the lock of the last sweep has lapsed. */
const nextInterval = () => connection.del(gw.deps.keys.lostJobSweepLock());

/** A worker takes the oldest job, starts it as ours do, and fails it for good; then it dies before recording that. */
async function failForGoodUnrecorded(expectedId: string, reason: string): Promise<void> {
  const workerConnection = createWorkerRedis(TEST_REDIS);
  const worker = new Worker(QUEUES.text, null, {
    connection: workerConnection,
    prefix: gw.deps.keys.bullPrefix(QUEUES.text),
  });
  try {
    const job = await worker.getNextJob("fault-token");
    expect(job?.id).toBe(expectedId);
    expect(await gw.deps.statuses.markStarted(expectedId)).toBe("processing");
    await job.moveToFailed(new UnrecoverableError(reason), "fault-token");
  } finally {
    await worker.close();
    workerConnection.disconnect();
  }
}

describe("the lost-job sweep", () => {
  it("when jobs are removed or obliterated under their records, or fail for good unrecorded, then one sweep closes each record, counts the lost ones, and leaves waiting jobs alone", async () => {
    const metrics = createMetrics("worker");
    const [removed, failed, waiting] = [await submit(), await submit(), await submit()];
    await (await queue.getJob(removed))!.remove();
    await failForGoodUnrecorded(failed, "engine exploded");
    expect([(await status(removed)).status, (await status(failed)).status]).toEqual(["processing", "processing"]);

    // Two workers sweep at the same moment: one wins, and each record is closed and counted once.
    const [one, two] = await Promise.all([sweeper(metrics).sweepOnce(), sweeper(metrics).sweepOnce()]);
    expect([one, two].filter((r) => r === null)).toHaveLength(1);
    expect(one ?? two).toEqual({ lost: 1, failed: 1 });
    expect(await status(removed)).toEqual({ status: "error", error: LOST_ERROR, errorCode: "lost" });
    expect(await status(failed)).toEqual({
      status: "error",
      error: "generation failed: engine exploded",
      errorCode: "generation_failed",
    });
    expect(await status(waiting)).toEqual({ status: "processing", progress: 0, queuePosition: 0 });
    expect(await lostCount(metrics)).toBe(1);

    // The whole queue obliterated: every record left open is lost, and counted.
    const later = await submit();
    await queue.obliterate({ force: true });
    await nextInterval();
    expect(await sweeper(metrics).sweepOnce()).toEqual({ lost: 2, failed: 0 });
    for (const id of [waiting, later])
      expect(await status(id)).toEqual({ status: "error", error: LOST_ERROR, errorCode: "lost" });
    expect(await lostCount(metrics)).toBe(3);

    // Nothing left to close: a further sweep changes nothing.
    await nextInterval();
    expect(await sweeper(metrics).sweepOnce()).toEqual({ lost: 0, failed: 0 });
  });
});

describeWithModel("final status writes that fail", () => {
  let engine: LlmEngine;
  beforeAll(async () => {
    engine = await loadFixtureEngine();
  });
  afterAll(() => engine.close());

  const until = (check: () => Promise<boolean>, what: string) => waitFor(what, check, { intervalMs: 20 });

  it("when recording a job's final failure fails once, then the write is retried and the record ends in that error", async () => {
    const worker = await startTestWorker(gw.prefix, engine, { jobTimeLimitMs: 300 });
    const fail = jest
      .spyOn(worker.deps.statuses, "fail")
      .mockRejectedValueOnce(new Error("LOADING Redis is loading the dataset in memory"));
    try {
      const id = await submit({ ...defaultRequest(), samplingParams: { max_tokens: 2048, temperature: 1.5 } });
      await until(async () => (await status(id)).status !== "processing", "the job's record is final");
      expect(await status(id)).toEqual({
        status: "error",
        error: "generation failed: generation exceeded the time limit of 0.3 s",
        errorCode: "timeout",
      });
      expect(fail.mock.calls.length).toBeGreaterThanOrEqual(2);
    } finally {
      fail.mockRestore();
      await worker.close();
    }
  });

  it("when recording a reply fails once, then the write is retried, the record ends completed, and the reply was generated once", async () => {
    const worker = await startTestWorker(gw.prefix, engine);
    const complete = jest
      .spyOn(worker.deps.statuses, "complete")
      .mockRejectedValueOnce(new Error("READONLY You can't write against a read only replica."));
    const failedAttempts: string[] = [];
    worker.workers[0]!.on("failed", (_job, error) => failedAttempts.push(error.message));
    try {
      const id = await submit({ ...defaultRequest(), samplingParams: { max_tokens: 20 } });
      await until(async () => (await status(id)).status !== "processing", "the job's record is final");
      expect((await status(id)).status).toBe("completed");
      expect(failedAttempts).toEqual([]);
      expect((await queue.getJob(id))?.attemptsMade).toBe(1);
    } finally {
      complete.mockRestore();
      await worker.close();
    }
  });
});
