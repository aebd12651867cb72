import { afterEach, expect, it } from "@jest/globals";
import type { RunningChild } from "@chorus/local-runtime";
import { ApiKeyStore } from "@chorus/platform/api-keys";
import { BatchStore } from "@chorus/platform/batches";
import { createWorkerRedis, redisKeys, type RedisClient } from "@chorus/platform/redis";
import OpenAI, { toFile } from "openai";
import type { Batch } from "openai/resources/batches";
import { describeWithModel } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { startApp, waitForOutput } from "../../../test-support/processes.js";
import { deleteKeysWithPrefix, TEST_REDIS, TEST_REDIS_URL, uniquePrefix } from "../../../test-support/redis.js";
import { loadFixtureEngine, startTestWorker, type LlmEngine, type TestWorker } from "../../../test-support/worker.js";
import { isFinalBatch } from "../../../test-support/batches.js";
import { countingEngine } from "../../../test-support/counting-engine.js";
import { waitFor } from "../../../test-support/wait-for.js";

/**
 * A batch survives kill -9 of the processes that run it: a worker killed mid-line (another takes
 * over; the killed line runs again after its lock lapses), a gateway killed mid-feed (another gateway
 * feeds on). Either way every line is answered exactly once and `request_counts` are exact.
 */
const LINES = 20;
const jsonl = () =>
  Array.from({ length: LINES }, (_, i) =>
    JSON.stringify({
      custom_id: `req-${i}`,
      method: "POST",
      url: "/v1/chat/completions",
      body: { model: "default", messages: [{ role: "user", content: `Tell a story ${i}` }], max_tokens: 60, seed: i },
    }),
  ).join("\n") + "\n";

const children: RunningChild[] = [];
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(children.splice(0).map((c) => c.kill("SIGKILL")));
  for (const close of closers.splice(0).reverse()) await close();
}, 60_000);

/** The job ids of a process's JSON log lines with this message. */
const loggedJobIds = (child: RunningChild, message: string) =>
  child
    .output()
    .split("\n")
    .filter((l) => l.includes(message))
    .map((l) => (JSON.parse(l) as { jobId: string }).jobId);

async function createBatch(openai: OpenAI): Promise<Batch> {
  const file = await openai.files.create({ file: await toFile(Buffer.from(jsonl()), "b.jsonl"), purpose: "batch" });
  return openai.batches.create({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h" });
}

/** Polls (a hang guard for loaded machines, not a timing) until the batch is final. */
async function untilFinal(read: () => Promise<{ status: string } | null>): Promise<void> {
  const final = (batch: { status: string } | null) => batch !== null && isFinalBatch(batch.status);
  await waitFor("the batch final", async () => final(await read()), { timeoutMs: 280_000, intervalMs: 250 });
}

async function outputIds(openai: OpenAI, batch: Batch): Promise<string[]> {
  const text = await (await openai.files.content(batch.output_file_id!)).text();
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => (JSON.parse(l) as { custom_id: string }).custom_id);
}

const allLines = Array.from({ length: LINES }, (_, i) => `req-${i}`);

describeWithModel("a batch survives kill -9 (real processes, real Redis)", () => {
  it("when a worker is killed mid-batch, then another takes over and every line is answered once", async () => {
    const prefix = uniquePrefix("batch-worker-kill");
    const gw: TestGateway = await startTestGateway(prefix, { BATCH_WINDOW: "4" });
    closers.push(() => gw.close());
    const server = gw.app.listen(0, "127.0.0.1");
    closers.push(() => new Promise((resolve) => server.close(resolve)));
    await new Promise((resolve) => server.once("listening", resolve));
    const address = server.address() as { port: number };
    const key = await gw.createKey({ limits: { text: 1_000_000, status: 1_000_000 } });
    const openai = new OpenAI({ baseURL: `http://127.0.0.1:${address.port}/v1`, apiKey: key, maxRetries: 0 });
    const env = { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix, WORKER_CONCURRENCY: "2" };
    const rescuer = startApp("worker", env);
    const victim = startApp("worker", env);
    children.push(rescuer, victim);
    await Promise.all([waitForOutput(rescuer, /worker ready/), waitForOutput(victim, /worker ready/)]);

    const batch = await createBatch(openai);
    await waitForOutput(victim, /generation started/);
    victim.process.kill("SIGKILL");
    await victim.exited;

    await untilFinal(() => openai.batches.retrieve(batch.id));
    const done = await openai.batches.retrieve(batch.id);
    expect(done).toMatchObject({ status: "completed", request_counts: { total: LINES, completed: LINES, failed: 0 } });
    expect((await outputIds(openai, done)).sort()).toEqual([...allLines].sort());
    // Each line's reply was stored once, over both workers.
    const completions = [
      ...loggedJobIds(victim, "generation completed"),
      ...loggedJobIds(rescuer, "generation completed"),
    ];
    expect(completions.length).toBe(LINES);
    expect(new Set(completions).size).toBe(LINES);
  }, 300_000);

  it("when the gateway feeding a batch is killed, then another gateway feeds on and every line runs once", async () => {
    const prefix = uniquePrefix("batch-gateway-kill");
    const connection: RedisClient = createWorkerRedis(TEST_REDIS);
    closers.push(async () => {
      connection.disconnect();
      await deleteKeysWithPrefix(TEST_REDIS, prefix);
    });
    const keys = redisKeys(prefix);
    const created = await new ApiKeyStore(connection, keys).create("batcher", ["*"], {
      text: 1_000_000,
      status: 1_000_000,
    });
    const fixture: LlmEngine = await loadFixtureEngine(2, 1024, "server");
    const { engine: counted, calls: engineCalls } = countingEngine(fixture);
    const worker: TestWorker = await startTestWorker(prefix, counted);
    closers.push(() => fixture.close());
    closers.push(() => worker.close());
    const env = { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix, PORT: "0", BATCH_WINDOW: "4" };
    const startGateway = async () => {
      const gateway = startApp("gateway", env);
      children.push(gateway);
      await waitForOutput(gateway, /gateway listening on/);
      const url = /"message":"gateway listening on (http:\/\/[^" ]+)/.exec(gateway.output())?.[1];
      return { gateway, openai: new OpenAI({ baseURL: `${url!}/v1`, apiKey: created.secret, maxRetries: 0 }) };
    };
    const first = await startGateway();
    const batch = await createBatch(first.openai);
    const store = new BatchStore(connection, keys);
    // Killed once a few lines have completed and more are fed.
    await waitFor("three lines completed", async () => ((await store.get(batch.id))?.completed ?? 0) >= 3, {
      timeoutMs: 120_000,
      intervalMs: 20,
    });
    first.gateway.process.kill("SIGKILL");
    await first.gateway.exited;

    const second = await startGateway();
    await untilFinal(() => store.get(batch.id));
    const done = await second.openai.batches.retrieve(batch.id);
    expect(done).toMatchObject({ status: "completed", request_counts: { total: LINES, completed: LINES, failed: 0 } });
    expect((await outputIds(second.openai, done)).sort()).toEqual([...allLines].sort());
    expect(engineCalls()).toBe(LINES);
  }, 300_000);
});
