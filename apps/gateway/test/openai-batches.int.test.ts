import { afterAll, beforeAll, expect, it } from "@jest/globals";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { BatchLineCounter, BatchStore } from "@chorus/platform/batches";
import { createWorkerRedis, type RedisClient } from "@chorus/platform/redis";
import { StatusStore } from "@chorus/platform/scheduler";
import OpenAI, { toFile } from "openai";
import type { Batch } from "openai/resources/batches";
import request from "supertest";
import { describeWithModel } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { TEST_REDIS, uniquePrefix } from "../../../test-support/redis.js";
import { submittedId } from "../../../test-support/response-body.js";
import {
  LLAMA_SERVER_BINARY,
  loadFixtureEngine,
  startTestWorker,
  type LlmEngine,
  type TestWorker,
} from "../../../test-support/worker.js";
import {
  batchCompleted,
  batchFileLines,
  createBatchOverHttp,
  isFinalBatch,
  jsonl,
} from "../../../test-support/batches.js";
import { countingEngine } from "../../../test-support/counting-engine.js";
import { waitFor } from "../../../test-support/wait-for.js";

const chatLine = (i: number, model = "default", extra: object = {}) =>
  JSON.stringify({
    custom_id: `req-${i}`,
    method: "POST",
    url: "/v1/chat/completions",
    body: { model, messages: [{ role: "user", content: `Say hello ${i}` }], max_tokens: 8, seed: i, ...extra },
  });

interface ResultLine {
  id: string;
  custom_id: string;
  response: { status_code: number; request_id: string; body: { object: string; choices: unknown[] } } | null;
  error: { code: string; message: string } | null;
}

/**
 * OpenAI's Batch API driven by the official openai client (files.create → batches.create → poll
 * retrieve → files.content) on the real worker with the fixture model on llama-server.
 */
describeWithModel("the Batch API (official openai client, llama-server)", () => {
  let gw: TestGateway;
  let worker: TestWorker;
  let fixture: LlmEngine;
  let counting: ReturnType<typeof countingEngine>;
  let server: Server;
  let baseURL: string;
  let openai: OpenAI;
  let key: string;

  beforeAll(async () => {
    if (!LLAMA_SERVER_BINARY) throw new Error("these tests need llama-server: run `npm run llama:build`");
    const prefix = uniquePrefix("openai-batches");
    gw = await startTestGateway(prefix, { BATCH_WINDOW: "2" });
    fixture = await loadFixtureEngine(2, 1024, "server");
    counting = countingEngine(fixture);
    worker = await startTestWorker(prefix, counting.engine);
    server = gw.app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    key = await gw.createKey({ limits: { text: 1_000_000, status: 1_000_000 } });
    openai = new OpenAI({ baseURL, apiKey: key, maxRetries: 0 });
  }, 120_000);
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await worker.close();
    await fixture.close();
    await gw.close();
  }, 60_000);

  const upload = async (client: OpenAI, text: string) =>
    client.files.create({ file: await toFile(Buffer.from(text), "batch.jsonl"), purpose: "batch" });

  const untilFinal = (client: OpenAI, id: string): Promise<Batch> =>
    waitFor(
      `batch ${id} final`,
      async () => {
        const batch = await client.batches.retrieve(id);
        return isFinalBatch(batch.status) ? batch : undefined;
      },
      { timeoutMs: 170_000, intervalMs: 100 },
    );

  const lines = (client: OpenAI, fileId: string | null | undefined) => batchFileLines<ResultLine>(client, fileId);

  it("when a batch of chat lines is created, then every line runs once and the output file answers each in input order", async () => {
    const before = counting.calls();
    const file = await upload(openai, jsonl(Array.from({ length: 6 }, (_, i) => chatLine(i))));
    const created = await openai.batches.create({
      input_file_id: file.id,
      endpoint: "/v1/chat/completions",
      completion_window: "24h",
      metadata: { purpose: "test" },
    });
    expect(created).toMatchObject({
      id: expect.stringMatching(/^batch_/),
      object: "batch",
      endpoint: "/v1/chat/completions",
      input_file_id: file.id,
      completion_window: "24h",
      status: "in_progress",
      request_counts: { total: 6, completed: 0, failed: 0 },
      metadata: { purpose: "test" },
      output_file_id: null,
      error_file_id: null,
    });
    expect(created.expires_at! - created.created_at).toBe(24 * 3600);
    const done = await untilFinal(openai, created.id);
    expect(done).toMatchObject({ status: "completed", request_counts: { total: 6, completed: 6, failed: 0 } });
    expect(done.completed_at).toEqual(expect.any(Number));
    expect(done.finalizing_at).toEqual(expect.any(Number));
    expect(done.error_file_id).toBeNull();
    const output = await lines(openai, done.output_file_id);
    expect(output.map((line) => line.custom_id)).toEqual(["req-0", "req-1", "req-2", "req-3", "req-4", "req-5"]);
    for (const line of output) {
      expect(line).toMatchObject({ id: expect.stringMatching(/^batch_req_/), error: null });
      expect(line.response).toMatchObject({ status_code: 200, body: { object: "chat.completion" } });
    }
    expect(counting.calls() - before).toBe(6);
    expect((await openai.files.retrieve(done.output_file_id!)).purpose).toBe("batch_output");
    // The key's own, newest first.
    const listed = await openai.batches.list({ limit: 1 });
    expect(listed.data.map((b) => b.id)).toEqual([created.id]);
  }, 120_000);

  it("when lines are bad, then the create is a 400 naming the first bad line and field, and listing them all", async () => {
    const bad = [
      chatLine(0),
      chatLine(1).replace('"POST"', '"GET"'),
      JSON.stringify({ custom_id: "x", method: "POST", url: "/v1/chat/completions", body: { model: "default" } }),
      "not json",
      chatLine(0),
    ];
    const file = await upload(openai, jsonl(bad));
    const res = await request(gw.app)
      .post("/v1/batches")
      .auth(key, { type: "bearer" })
      .send({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h" });
    expect(res.status).toBe(400);
    const { error } = res.body as {
      error: { message: string; param: string; errors: { line: number; param: string }[] };
    };
    expect(error.message).toMatch(/^line 2: method: method must be POST/);
    expect(error.param).toBe("line 2: method");
    expect(error.errors.map((e) => [e.line, e.param])).toEqual([
      [2, "method"],
      [3, "body.messages"],
      [4, null],
      [5, "custom_id"],
    ]);
    const wrongWindow = await request(gw.app)
      .post("/v1/batches")
      .auth(key, { type: "bearer" })
      .send({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "48h" });
    expect(wrongWindow.status).toBe(400);
    expect((wrongWindow.body as { error: { param: string } }).error.param).toBe("completion_window");
  });

  it("when another key asks for a batch, then it does not exist for that key", async () => {
    const file = await upload(openai, jsonl([chatLine(0)]));
    const batch = await openai.batches.create({
      input_file_id: file.id,
      endpoint: "/v1/chat/completions",
      completion_window: "24h",
    });
    const other = new OpenAI({ baseURL, apiKey: await gw.createKey(), maxRetries: 0 });
    await expect(other.batches.retrieve(batch.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.batches.cancel(batch.id)).rejects.toMatchObject({ status: 404 });
    expect((await other.batches.list()).data).toEqual([]);
    await untilFinal(openai, batch.id);
  }, 60_000);

  it("when a line names a model the key may not use, then that line fails in the error file and the rest complete", async () => {
    const scoped = await gw.createKey({ scopes: ["text:default"], limits: { status: 1_000_000 } });
    const client = new OpenAI({ baseURL, apiKey: scoped, maxRetries: 0 });
    const file = await upload(client, jsonl([chatLine(0), chatLine(1, "Witch"), chatLine(2)]));
    const batch = await client.batches.create({
      input_file_id: file.id,
      endpoint: "/v1/chat/completions",
      completion_window: "24h",
    });
    const done = await untilFinal(client, batch.id);
    expect(done).toMatchObject({ status: "completed", request_counts: { total: 3, completed: 2, failed: 1 } });
    expect((await lines(client, done.output_file_id)).map((l) => l.custom_id)).toEqual(["req-0", "req-2"]);
    const errors = await lines(client, done.error_file_id);
    expect(errors).toMatchObject([{ custom_id: "req-1", response: null, error: { code: "permission_denied" } }]);
  }, 60_000);

  it("when the key's token budget is spent, then its lines fail with insufficient_quota and the batch completes with only an error file", async () => {
    const poor = await gw.createKey({ limits: { status: 1_000_000, tokens_day: 1 } });
    const client = new OpenAI({ baseURL, apiKey: poor, maxRetries: 0 });
    const before = counting.calls();
    const file = await upload(client, jsonl([chatLine(0), chatLine(1)]));
    const batch = await client.batches.create({
      input_file_id: file.id,
      endpoint: "/v1/chat/completions",
      completion_window: "24h",
    });
    const done = await untilFinal(client, batch.id);
    expect(done).toMatchObject({ status: "completed", request_counts: { total: 2, completed: 0, failed: 2 } });
    expect(done.output_file_id).toBeNull();
    const errors = await lines(client, done.error_file_id);
    expect(errors.map((l) => l.error?.code)).toEqual(["insufficient_quota", "insufficient_quota"]);
    expect(counting.calls() - before).toBe(0);
  }, 60_000);

  it("when a batch is cancelled, then no more lines run and the rest are batch_cancelled in the error file", async () => {
    const file = await upload(openai, jsonl(Array.from({ length: 12 }, (_, i) => chatLine(i))));
    const batch = await openai.batches.create({
      input_file_id: file.id,
      endpoint: "/v1/chat/completions",
      completion_window: "24h",
    });
    const cancelling = await openai.batches.cancel(batch.id);
    expect(["cancelling", "cancelled"]).toContain(cancelling.status);
    const done = await untilFinal(openai, batch.id);
    expect(done.status).toBe("cancelled");
    expect(done.cancelled_at).toEqual(expect.any(Number));
    const { completed, failed, total } = done.request_counts!;
    expect(total).toBe(12);
    const output = await lines(openai, done.output_file_id);
    const errors = await lines(openai, done.error_file_id);
    expect(output.length).toBe(completed);
    expect(output.length + errors.length).toBe(12);
    expect(errors.length).toBeGreaterThanOrEqual(failed);
    expect(errors.every((l) => l.error?.code === "batch_cancelled")).toBe(true);
    // In input order, each file.
    const order = (ls: ResultLine[]) => ls.map((l) => Number(l.custom_id.slice(4)));
    expect(order(errors)).toEqual([...order(errors)].sort((a, b) => a - b));
    // Cancelling a finished batch: 409.
    await expect(openai.batches.cancel(batch.id)).rejects.toMatchObject({ status: 409 });
  }, 60_000);

  it("when a key holds its cap of batches in progress, then one more is a 429 naming the cap", async () => {
    const capped = await gw.createKey({ limits: { status: 1_000_000, batches: 1 } });
    const client = new OpenAI({ baseURL, apiKey: capped, maxRetries: 0 });
    const file = await upload(client, jsonl(Array.from({ length: 4 }, (_, i) => chatLine(i))));
    const first = await client.batches.create({
      input_file_id: file.id,
      endpoint: "/v1/chat/completions",
      completion_window: "24h",
    });
    await expect(
      client.batches.create({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h" }),
    ).rejects.toMatchObject({ status: 429, message: expect.stringMatching(/batches in progress/) });
    await untilFinal(client, first.id);
  }, 60_000);
});

/**
 * Batch lines take their key's batch turns (`<key>:batch`, weight BATCH_TURN_WEIGHT): an interactive
 * request submitted while a batch of 30 lines runs on 2 slots starts after at most one batch line per
 * busy slot. The worker's StatusStore notes the order in which jobs really start.
 */
describeWithModel("batch lines and interactive requests (fair turns, llama-server)", () => {
  let gw: TestGateway;
  let worker: TestWorker;
  let fixture: LlmEngine;
  let connection: RedisClient;
  const started: string[] = [];

  beforeAll(async () => {
    const prefix = uniquePrefix("batch-turns");
    // A window as wide as the batch: every line waits in the queue at once; a back-pressure bound
    // below it, which batch lines do not count in.
    gw = await startTestGateway(prefix, { BATCH_WINDOW: "30", MAX_QUEUE_DEPTH: "10" });
    fixture = await loadFixtureEngine(2, 1024, "server");
    connection = createWorkerRedis(TEST_REDIS);
    const keys = gw.deps.keys;
    const counter = new BatchLineCounter(new BatchStore(connection, keys), connection, keys, 3600);
    const statuses = new (class extends StatusStore {
      override async markStarted(requestId: string, now?: number) {
        started.push(requestId);
        return super.markStarted(requestId, now);
      }
    })(connection, keys, 3600, undefined, undefined, counter);
    worker = await startTestWorker(prefix, fixture, { statuses });
  }, 120_000);
  afterAll(async () => {
    await worker.close();
    await fixture.close();
    connection.disconnect();
    await gw.close();
  }, 60_000);

  it("when an interactive request is submitted while a 30-line batch runs on 2 slots, then it is not refused by back-pressure and at most 2 batch lines start before it", async () => {
    const key = await gw.createKey({ limits: { text: 1_000_000, status: 1_000_000 } });
    const lines = Array.from({ length: 30 }, (_, i) => chatLine(i, "default", { max_tokens: 24 }));
    const created = await createBatchOverHttp(gw.app, key, lines);
    expect(created.status).toBe(200);
    const batchId = (created.body as { id: string }).id;
    // Wait until the batch's lines are started and queued (the feeder fed them all).
    await waitFor("two batch lines started", () => started.length >= 2, { intervalMs: 20 });
    // Every line is queued or running (the feeder fed them in one step), and the back-pressure
    // reading is fresh: it leaves batch lines out, so the interactive submit is not refused.
    const fedOrEnded = async () => {
      const batch = await gw.deps.batches.get(batchId);
      return (batch?.completed ?? 0) + (batch?.failed ?? 0) + (await gw.deps.batches.fed(batchId)).length;
    };
    await waitFor("every line fed", async () => (await fedOrEnded()) >= 30, { timeoutMs: 170_000, intervalMs: 20 });
    expect(await gw.deps.queueDepth.refresh()).toBeLessThan(10);
    const startedBefore = started.length;
    const interactive = await request(gw.app)
      .post("/api/text/default")
      .auth(key, { type: "bearer" })
      .send({ messages: [{ role: "You", content: "Hi!", index: 0 }], samplingParams: { max_tokens: 8 } });
    expect(interactive.status).toBe(200);
    const id = submittedId(interactive);
    await waitFor("the interactive request started", () => started.includes(id), {
      timeoutMs: 170_000,
      intervalMs: 20,
    });
    const batchLinesBefore = started.indexOf(id) - startedBefore;
    expect(batchLinesBefore).toBeLessThanOrEqual(2);
    const completed = await batchCompleted(gw.app, key, batchId, 170_000);
    expect(completed.request_counts).toEqual({ total: 30, completed: 30, failed: 0 });
  }, 180_000);
});

/**
 * completion_window, shortened for tests only (BATCH_WINDOW_SECONDS_FOR_TESTS): lines not fed by
 * then, or fed and not started, end `batch_expired` in the error file; the batch is `expired` with
 * the output of what completed.
 */
describeWithModel("a batch past its completion window (llama-server)", () => {
  let gw: TestGateway;
  let worker: TestWorker;
  let fixture: LlmEngine;

  beforeAll(async () => {
    const prefix = uniquePrefix("batch-expiry");
    gw = await startTestGateway(prefix, { BATCH_WINDOW: "1", BATCH_WINDOW_SECONDS_FOR_TESTS: "2" });
    fixture = await loadFixtureEngine(2, 1024, "server");
    worker = await startTestWorker(prefix, fixture);
  }, 120_000);
  afterAll(async () => {
    await worker.close();
    await fixture.close();
    await gw.close();
  }, 60_000);

  it("when the window passes before every line ran, then the batch is expired and the rest are batch_expired, each line once", async () => {
    const key = await gw.createKey({ limits: { text: 1_000_000, status: 1_000_000 } });
    const lines = Array.from({ length: 40 }, (_, i) => chatLine(i, "default", { max_tokens: 200 }));
    const created = await createBatchOverHttp(gw.app, key, lines);
    const batchId = (created.body as { id: string }).id;
    type BatchBody = { status: string; request_counts: { completed: number; failed: number; total: number } } & Record<
      string,
      unknown
    >;
    const batch = await waitFor(
      "the batch final",
      async () => {
        const res = await request(gw.app).get(`/v1/batches/${batchId}`).auth(key, { type: "bearer" });
        const body = res.body as BatchBody;
        return isFinalBatch(body.status) ? body : undefined;
      },
      { timeoutMs: 170_000, intervalMs: 200 },
    );
    expect(batch.status).toBe("expired");
    expect(batch.expired_at).toEqual(expect.any(Number));
    const read = async (id: unknown): Promise<ResultLine[]> => {
      if (typeof id !== "string") return [];
      const res = await request(gw.app).get(`/v1/files/${id}/content`).auth(key, { type: "bearer" }).buffer(true);
      const text = (res.body as Buffer).toString();
      return text
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as ResultLine);
    };
    const output = await read(batch.output_file_id);
    const errors = await read(batch.error_file_id);
    expect(output.length).toBe(batch.request_counts.completed);
    expect(output.length + errors.length).toBe(40);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((l) => l.error?.code === "batch_expired")).toBe(true);
    expect(new Set([...output, ...errors].map((l) => l.custom_id)).size).toBe(40);
  }, 120_000);
});
