import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RequestListItem, RequestsListPage, StatusRecord } from "@chorus/contracts";
import type { UsageFigures } from "@chorus/platform/usage";
import { Redis } from "ioredis";
import OpenAI, { toFile } from "openai";
import request from "supertest";
import { freePort, startPrivateRedis, type PrivateRedis } from "@chorus/local-runtime";
import { sleep } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { waitUntilGone } from "../../../test-support/process-tree.js";
import { type LlmEngine, loadFixtureEngine, startTestWorker, type TestWorker } from "../../../test-support/worker.js";
import { waitFor } from "../../../test-support/wait-for.js";
import { batchFileLines, isFinalBatch } from "../../../test-support/batches.js";
import { countingEngine } from "../../../test-support/counting-engine.js";

/**
 * A master, two replicas and three sentinels, all private. Two replicas, not one: with
 * REDIS_WAIT_REPLICAS=1 the promoted replica needs a replica of its own before a submit can be
 * confirmed again, and Sentinel re-points the second replica at it (the old master stays dead).
 */
const MASTER_NAME = "chorus-test";
let dir: string;
let master: PrivateRedis;
const replicas: PrivateRedis[] = [];
const sentinels: { port: number; process: ChildProcess }[] = [];
let engine: LlmEngine;
let gw: TestGateway;
let worker: TestWorker;
let key: string;
/** Every call the worker made to its engine: a batch line may be answered once only. */
let engineCalls: () => number = () => 0;

const portOf = (redis: PrivateRedis) => Number(new URL(redis.url).port);

const until = <T>(what: string, probe: () => Promise<T>, timeoutMs = 60_000) =>
  waitFor(what, probe, { timeoutMs, intervalMs: 100 });

/** Asks one sentinel (a short-lived connection): `SENTINEL <args>`. */
async function askSentinel(port: number, ...args: string[]): Promise<unknown> {
  const client = new Redis({
    port,
    host: "127.0.0.1",
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on("error", () => undefined);
  try {
    await client.connect();
    return await client.call("SENTINEL", ...args);
  } finally {
    client.disconnect();
  }
}

function ownDir(name: string): string {
  const path = join(dir, name);
  mkdirSync(path);
  return path;
}

async function startSentinel(masterPort: number): Promise<void> {
  const port = await freePort();
  const conf = join(dir, `sentinel-${port}.conf`);
  const lines = [
    `port ${port}`,
    "bind 127.0.0.1",
    `dir ${dir}`,
    `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${masterPort} 2`,
    `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
    `sentinel failover-timeout ${MASTER_NAME} 5000`,
    `sentinel parallel-syncs ${MASTER_NAME} 1`,
  ];
  writeFileSync(conf, `${lines.join("\n")}\n`);
  sentinels.push({
    port,
    process: spawn("redis-server", [conf, "--sentinel"], { stdio: ["ignore", "ignore", "inherit"] }),
  });
}

const masterPortNow = async () =>
  Number(((await askSentinel(sentinels[0]!.port, "get-master-addr-by-name", MASTER_NAME)) as string[])[1]);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chorus-sentinel-"));
  // Each server in a directory of its own: a replica writes the RDB its master sends it to its
  // working directory, and a server started later in that directory would load it.
  master = await startPrivateRedis(["--dir", ownDir("master")]);
  for (let i = 0; i < 2; i++)
    replicas.push(
      await startPrivateRedis(["--dir", ownDir(`replica-${i}`), "--replicaof", "127.0.0.1", String(portOf(master))]),
    );
  for (let i = 0; i < 3; i++) await startSentinel(portOf(master));
  // Ready when each sentinel has met the others and knows both replicas: a failover can then happen.
  for (const { port } of sentinels) {
    await until("sentinels and replicas discovered", async () => {
      const known = (await askSentinel(port, "master", MASTER_NAME)) as string[];
      const field = (name: string) => Number(known[known.indexOf(name) + 1]);
      return field("num-other-sentinels") === 2 && field("num-slaves") === 2;
    });
  }
  const settings = {
    REDIS_SENTINELS: sentinels.map((s) => `127.0.0.1:${s.port}`).join(","),
    REDIS_SENTINEL_MASTER: MASTER_NAME,
    REDIS_WAIT_REPLICAS: "1",
    REDIS_WAIT_TIMEOUT_MS: "500",
    MAX_QUEUE_DEPTH: "0",
  };
  gw = await startTestGateway("sentinel", settings);
  key = await gw.createKey({ limits: { text: 100_000, status: 100_000 } });
  engine = await loadFixtureEngine(2);
  const target = {
    sentinel: { sentinels: sentinels.map((s) => ({ host: "127.0.0.1", port: s.port })), master: MASTER_NAME },
  };
  const counted = countingEngine(engine);
  engineCalls = counted.calls;
  worker = await startTestWorker("sentinel", counted.engine, {}, target);
}, 120_000);

afterAll(async () => {
  await worker?.close();
  await engine?.close();
  await gw?.close({ keepKeys: true }); // private servers, stopped next
  for (const s of sentinels) s.process.kill("SIGKILL");
  await Promise.all([master, ...replicas].filter(Boolean).map((r) => r.stop()));
  for (const s of sentinels) await waitUntilGone(s.process.pid ?? 0);
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** Every HTTP status the gateway answered, to assert that none was a 500. */
const answered: number[] = [];

/** Submits until answered 200, retrying a 503 with the same Idempotency-Key, as a client should. */
async function submitUntilAccepted(idempotencyKey: string): Promise<string> {
  for (;;) {
    const res = await request(gw.app)
      .post("/api/text/default")
      .auth(key, { type: "bearer" })
      .set("Idempotency-Key", idempotencyKey)
      .timeout(15_000)
      .send({ messages: [{ role: "You", content: "Say hi.", index: 0 }], samplingParams: { max_tokens: 4 } });
    answered.push(res.status);
    if (res.status === 200) return (res.body as { id: string }).id;
    if (res.status !== 503) throw new Error(`submit answered ${res.status}: ${JSON.stringify(res.body)}`);
    expect(res.headers["retry-after"]).toMatch(/^\d+$/);
    await sleep(200);
  }
}

async function finalRecordOf(id: string): Promise<StatusRecord> {
  return until(
    `request ${id} final`,
    async () => {
      const res = await request(gw.app).get(`/api/v2/status/${id}`).auth(key, { type: "bearer" }).timeout(15_000);
      answered.push(res.status);
      const record = res.body as StatusRecord;
      return res.status === 200 && record.status !== "processing" ? record : null;
    },
    240_000,
  );
}

/** The key's usage over every model (the default range ends today). */
async function usageTotal(): Promise<UsageFigures> {
  const res = await request(gw.app).get("/api/v2/usage?groupBy=model").auth(key, { type: "bearer" }).timeout(15_000);
  expect(res.status).toBe(200);
  return (res.body as { total: UsageFigures }).total;
}

/**
 * Every record of the key, once none is still processing. It may hold more than the submits the
 * clients saw accepted: one answered 503 during the failover can have reached Redis all the same, and
 * its job runs (and is metered) like any other.
 */
async function recordsOfKey(): Promise<RequestListItem[]> {
  return until("every record of the key final", async () => {
    const all: RequestListItem[] = [];
    let cursor: string | null = null;
    do {
      const page = `/api/v2/requests?limit=100${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
      const res = await request(gw.app).get(page).auth(key, { type: "bearer" }).timeout(15_000);
      expect(res.status).toBe(200);
      const body = res.body as RequestsListPage;
      all.push(...body.data);
      cursor = body.nextCursor;
    } while (cursor !== null);
    return all.every((record) => record.status !== "processing") ? all : null;
  });
}

describe("when the Redis master is killed under load and Sentinel promotes a replica", () => {
  it("then every accepted submit ends completed, no answer is a 500, submits succeed after the failover, and the key's usage is the sum of its completed records", async () => {
    const oldMasterPort = portOf(master);
    let running = true;
    let counter = 0;
    const accepted: string[] = [];
    // Three clients submitting one after another: more requests than the worker's two slots.
    const clients = [0, 1, 2].map(async (client) => {
      while (running) {
        accepted.push(await submitUntilAccepted(`c${client}-${++counter}`));
        await sleep(100);
      }
    });
    await until("some submits accepted before the kill", () => Promise.resolve(accepted.length >= 6));
    master.child.process.kill("SIGKILL");
    await until("a new master", async () => (await masterPortNow()) !== oldMasterPort);
    const acceptedAtSwitch = accepted.length;
    await until(
      "submits accepted after the failover",
      () => Promise.resolve(accepted.length >= acceptedAtSwitch + 6),
      120_000,
    );
    running = false;
    await Promise.all(clients);

    const finals = await Promise.all(accepted.map(finalRecordOf));
    expect(finals.map((record) => record.status).filter((status) => status !== "completed")).toEqual([]);
    expect(answered.filter((status) => status >= 500 && status !== 503)).toEqual([]);
    // Nothing counted was lost or counted twice over the failover: the key's usage is the sum of its completed records.
    const completed = (await recordsOfKey()).filter((record) => record.status === "completed");
    expect(completed.length).toBeGreaterThanOrEqual(finals.length);
    const sum = (pick: (record: StatusRecord) => number | undefined) =>
      completed.reduce((total, record) => total + (pick(record) ?? 0), 0);
    // A record turns final, then its writer meters it: wait until every completion is counted, then check the sums.
    const total = await until("every completion metered", async () => {
      const read = await usageTotal();
      return read.requests.completed >= completed.length ? read : null;
    });
    expect(total.requests).toEqual({ completed: completed.length, error: 0, cancelled: 0 });
    expect(total.completionTokens).toBe(sum((record) => record.tokens));
    expect(total.promptTokens).toBe(sum((record) => record.promptTokens));
    expect(total.cachedPromptTokens).toBe(sum((record) => record.cachedTokens));
  }, 400_000);
});

/**
 * Runs after the kill above, on the promoted master: a manual `SENTINEL FAILOVER` moves the master
 * once more (the demoted master becomes a replica, so REDIS_WAIT_REPLICAS=1 holds after it). Every
 * line must complete: a failover only makes the gateway's and worker's Redis calls wait and retry, so
 * no line is allowed to fail, and none may run twice.
 */
describe("when the Redis master fails over under Sentinel while a batch runs", () => {
  const LINES = 12;
  const ids = Array.from({ length: LINES }, (_, i) => `line-${i}`);
  const jsonl = ids
    .map((custom_id, i) =>
      JSON.stringify({
        custom_id,
        method: "POST",
        url: "/v1/chat/completions",
        body: { model: "default", messages: [{ role: "user", content: `Say hi ${i}.` }], max_tokens: 60, seed: i },
      }),
    )
    .join("\n");

  type ResultLine = { custom_id: string; response: { status_code: number } | null };
  const linesOf = (openai: OpenAI, fileId: string | null | undefined) => batchFileLines<ResultLine>(openai, fileId);

  it("then it ends completed with exact counts, every line answered once and run once", async () => {
    const server = gw.app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const { port } = server.address() as { port: number };
      const openai = new OpenAI({
        baseURL: `http://127.0.0.1:${port}/v1`,
        apiKey: key,
        maxRetries: 0,
        timeout: 15_000,
      });
      const callsBefore = engineCalls();
      const file = await openai.files.create({ file: await toFile(Buffer.from(jsonl), "b.jsonl"), purpose: "batch" });
      const batch = await openai.batches.create({
        input_file_id: file.id,
        endpoint: "/v1/chat/completions",
        completion_window: "24h",
      });
      const atFailover = await until("a line completed before the failover", async () => {
        const read = await openai.batches.retrieve(batch.id);
        return (read.request_counts?.completed ?? 0) >= 1 ? read : null;
      });
      // Lines of 60 tokens on two slots: the batch is still running when the master moves.
      expect(atFailover.request_counts?.completed ?? 0).toBeLessThan(LINES);
      const oldMasterPort = await masterPortNow();
      // A sentinel answers INPROG while a failover is still in progress (the kill's above, re-pointing the replicas
      // for up to its failover-timeout): asked again until it starts this one.
      await until("a sentinel to start the failover", () =>
        askSentinel(sentinels[0]!.port, "failover", MASTER_NAME).then(() => true),
      );
      await until("a new master", async () => (await masterPortNow()) !== oldMasterPort);
      // Reads during the switch may fail (a client would retry): the guard polls until one is final.
      const done = await until(
        "the batch final",
        async () => {
          const read = await openai.batches.retrieve(batch.id).catch(() => null);
          return read && isFinalBatch(read.status) ? read : null;
        },
        240_000,
      );
      const output = await linesOf(openai, done.output_file_id);
      const errors = await linesOf(openai, done.error_file_id);
      expect(done.status).toBe("completed");
      expect(done.request_counts).toEqual({ total: LINES, completed: LINES, failed: 0 });
      expect(output.filter((line) => line.response?.status_code === 200).length).toBe(LINES);
      expect([...output, ...errors].map((line) => line.custom_id).sort()).toEqual([...ids].sort());
      expect(engineCalls() - callsBefore).toBe(LINES);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }, 400_000);
});
