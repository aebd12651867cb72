import { jest } from "@jest/globals";
import { QUEUES, type StatusRecord } from "@chorus/contracts";
import { createWorkerRedis } from "@chorus/platform/redis";
import { Queue, Worker } from "bullmq";
import request from "supertest";
import { defaultRequest } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { TEST_REDIS_URL, uniquePrefix } from "../../../test-support/redis.js";
import { submittedId } from "../../../test-support/response-body.js";

/**
 * Fault injection for the queue figures: cancels of waiting jobs and of a job
 * waiting for its retry, and an enqueue the queue refuses. Every step compares the depth used for
 * backpressure with BullMQ's own count, and the test ends with the state of every accepted request.
 */
let gw: TestGateway;
let queue: Queue;
let key: string;
beforeAll(async () => {
  gw = await startTestGateway(uniquePrefix("fault-depth"), { MAX_QUEUE_DEPTH: "3" });
  queue = new Queue(QUEUES.text, { connection: gw.deps.queueRedis, prefix: gw.deps.keys.bullPrefix(QUEUES.text) });
  key = await gw.createKey({ limits: { text: 1000, status: 1000 } });
});
afterAll(async () => {
  await queue.close();
  await gw.close();
});

const submit = () => request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).send(defaultRequest());
const status = async (id: string) =>
  (await request(gw.app).get(`/api/v2/status/${id}`).auth(key, { type: "bearer" })).body as StatusRecord;
const cancel = (id: string) => request(gw.app).delete(`/api/v2/status/${id}`).auth(key, { type: "bearer" });

/** Jobs the fleet still owes an answer, as BullMQ itself counts them. */
async function realBacklog(): Promise<number> {
  const counts = await queue.getJobCounts("waiting", "prioritized", "delayed", "active");
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

/** Depth as backpressure sees it (after a refresh, so the test does not wait for the timer). */
const depth = () => gw.deps.queueDepth.refresh();

/** A worker takes the oldest job, starts it as ours do, and fails its first attempt: it now waits for a retry. */
async function failFirstAttempt(expectedId: string): Promise<void> {
  const connection = createWorkerRedis(TEST_REDIS_URL);
  const worker = new Worker(QUEUES.text, null, { connection, prefix: gw.deps.keys.bullPrefix(QUEUES.text) });
  try {
    const job = await worker.getNextJob("fault-token");
    expect(job?.id).toBe(expectedId);
    expect(await gw.deps.statuses.markStarted(expectedId)).toBe("processing");
    await job.moveToFailed(new Error("engine hiccup"), "fault-token");
    expect(await queue.getJobState(expectedId)).toBe("delayed");
  } finally {
    await worker.close();
    connection.disconnect();
  }
}

describe("queue depth and positions under cancels, retries and a refused enqueue", () => {
  it("when jobs are cancelled (one waiting for its retry) and an enqueue fails, then depth equals BullMQ's backlog at every step, positions stay true, MAX_QUEUE_DEPTH admits again, and no accepted request is stuck", async () => {
    const [a, b, c] = [submittedId(await submit()), submittedId(await submit()), submittedId(await submit())];
    expect(await depth()).toBe(3);
    expect((await submit()).status).toBe(503);

    // A started once and failed: it waits for a retry and still counts, as the fleet owes it an answer.
    await failFirstAttempt(a);
    expect(await depth()).toBe(await realBacklog());
    expect((await submit()).status).toBe(503);

    // Cancelling the job that waits for its retry: it leaves the queue once, not twice.
    expect((await cancel(a)).status).toBe(200);
    expect(await depth()).toBe(await realBacklog());
    expect([(await status(b)).queuePosition, (await status(c)).queuePosition]).toEqual([0, 1]);

    // The queue refuses one enqueue: the client is told, and nothing of it stays counted or open.
    const add = jest.spyOn(Queue.prototype, "add").mockRejectedValueOnce(new Error("queue refused the job"));
    const refused = await submit();
    const refusedId = (add.mock.calls[0]?.[2] as { jobId: string }).jobId;
    add.mockRestore();
    expect(refused.status).toBe(500);
    expect(await depth()).toBe(await realBacklog());
    expect((await gw.deps.statuses.get(refusedId))?.record.status).not.toBe("processing");

    // Cancelling a waiting job: the one behind it moves up, and depth follows.
    expect((await cancel(b)).status).toBe(200);
    expect(await depth()).toBe(await realBacklog());
    expect((await status(c)).queuePosition).toBe(0);

    // Below MAX_QUEUE_DEPTH again: submissions are admitted, behind the job still waiting.
    const d = await submit();
    expect(d.status).toBe(200);
    expect(await depth()).toBe(await realBacklog());
    expect((await status(submittedId(d))).queuePosition).toBe(1);

    // End state: every accepted request is final, or its job is really waiting in the queue.
    expect(await status(a)).toEqual({
      status: "error",
      error: "cancelled",
      errorCode: "cancelled",
      finishReason: "cancelled",
    });
    expect(await status(b)).toEqual({
      status: "error",
      error: "cancelled",
      errorCode: "cancelled",
      finishReason: "cancelled",
    });
    for (const id of [c, submittedId(d)]) {
      expect((await status(id)).status).toBe("processing");
      expect(await queue.getJobState(id)).toBe("prioritized"); // waiting for its turn (fair-turns.ts)
    }
  });
});
