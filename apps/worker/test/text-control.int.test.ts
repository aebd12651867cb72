import { QUEUES, type StatusRecord } from "@chorus/contracts";
import { Queue } from "bullmq";
import request from "supertest";
import type { LlmEngine } from "../src/engines/llm/llm-engine.js";
import { defaultRequest, describeWithModel } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { errorOf, submittedId } from "../../../test-support/response-body.js";
import { loadFixtureEngine, startTestWorker, type TestWorker } from "../../../test-support/worker.js";
import { waitFor } from "../../../test-support/wait-for.js";

/** A request that keeps the fixture model busy for seconds (context shifts past its window). */
const LONG = { ...defaultRequest(), samplingParams: { max_tokens: 2048, temperature: 1.5 } };

describeWithModel("cancelling and time-limiting generations", () => {
  let gw: TestGateway;
  let engine: LlmEngine;
  let key: string;
  beforeAll(async () => {
    gw = await startTestGateway(uniquePrefix("control"));
    engine = await loadFixtureEngine();
    key = await gw.createKey({ limits: { status: 1_000_000 } });
  });
  afterAll(async () => {
    await engine.close();
    await gw.close();
  });

  const submit = async (body: object = LONG) =>
    submittedId(await request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).send(body));
  const status = async (id: string) =>
    (await request(gw.app).get(`/api/v2/status/${id}`).auth(key, { type: "bearer" })).body as StatusRecord;
  const cancel = (id: string, k = key) => request(gw.app).delete(`/api/v2/status/${id}`).auth(k, { type: "bearer" });
  const until = (check: () => Promise<boolean>, what: string) => waitFor(what, check, { intervalMs: 20 });

  it("when a queued job is cancelled, then its record is error 'cancelled' and the job leaves the queue", async () => {
    const id = await submit();
    const res = await cancel(id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: "error",
      error: "cancelled",
      errorCode: "cancelled",
      finishReason: "cancelled",
    });
    const queue = new Queue(QUEUES.text, { connection: gw.deps.redis, prefix: gw.deps.keys.bullPrefix(QUEUES.text) });
    expect(await queue.getJob(id)).toBeUndefined();
    await queue.close();
  });

  /** A long job, already streaming, and how it ended: "failed: <reason>" or "completed". */
  async function streamingJob(worker: TestWorker): Promise<{ id: string; ended: Promise<string> }> {
    const id = await submit();
    const [bullWorker] = worker.workers;
    const ended = new Promise<string>((resolve) => {
      bullWorker!.on("failed", (job, error) => job?.id === id && resolve(`failed: ${error.message}`));
      bullWorker!.on("completed", (job) => job.id === id && resolve("completed"));
    });
    await until(async () => ((await status(id)).progress ?? 0) > 0, "the job streams");
    return { id, ended };
  }

  it("when a running job is cancelled, then generation stops, the record stays cancelled and the slot is free", async () => {
    const worker: TestWorker = await startTestWorker(gw.prefix, engine, { concurrency: 1 });
    try {
      const { id, ended } = await streamingJob(worker);
      expect((await cancel(id)).status).toBe(200);
      expect(await ended).toBe("failed: cancelled");
      expect(await status(id)).toEqual({
        status: "error",
        error: "cancelled",
        errorCode: "cancelled",
        finishReason: "cancelled",
      });

      // The only slot is free again: a short job completes.
      const next = await submit({ ...defaultRequest(), samplingParams: { max_tokens: 20 } });
      await until(async () => (await status(next)).status === "completed", "the next job completes");
    } finally {
      await worker.close();
    }
  });

  it("when the cancel message never reaches the worker, then its next progress write finds the record final and generation stops", async () => {
    const worker: TestWorker = await startTestWorker(gw.prefix, engine, { concurrency: 1 });
    try {
      const { id, ended } = await streamingJob(worker);
      // What DELETE does to the record, without the pub/sub message that tells the worker.
      expect(await gw.deps.statuses.fail(id, "cancelled")).toBe(true);
      expect(await ended).toBe("failed: cancelled");
      expect(await status(id)).toEqual({
        status: "error",
        error: "cancelled",
        errorCode: "cancelled",
        finishReason: "cancelled",
      });
    } finally {
      await worker.close();
    }
  });

  it("when a finished job is cancelled, then it is 409 CONFLICT; another key's job is 404", async () => {
    const id = await submit();
    await gw.deps.statuses.complete(id, {
      reply: "done",
      tokens: 1,
      promptTokens: 1,
      cachedTokens: 0,
      processingTime: 0.1,
      droppedMessages: 0,
      finishReason: "stop",
      maxTokens: 150,
    });
    const res = await cancel(id);
    expect(res.status).toBe(409);
    expect(errorOf(res).code).toBe("CONFLICT");
    const stranger = await gw.createKey();
    expect((await cancel(await submit(), stranger)).status).toBe(404);
  });

  it("when a generation runs past the time limit, then the record is error with a clear message", async () => {
    const prefix = uniquePrefix("timelimit");
    const gw2 = await startTestGateway(prefix);
    const worker = await startTestWorker(prefix, engine, { jobTimeLimitMs: 300 });
    try {
      const k = await gw2.createKey();
      const id = submittedId(await request(gw2.app).post("/api/text/default").auth(k, { type: "bearer" }).send(LONG));
      let record: StatusRecord = { status: "processing" };
      await until(
        async () =>
          (record = (await request(gw2.app).get(`/api/v2/status/${id}`).auth(k, { type: "bearer" }))
            .body as StatusRecord).status !== "processing",
        "the job ends",
      );
      expect(record).toEqual({
        status: "error",
        error: "generation failed: generation exceeded the time limit of 0.3 s",
        errorCode: "timeout",
      });
    } finally {
      await worker.close();
      await gw2.close();
    }
  });
});
