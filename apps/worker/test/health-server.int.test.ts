import { QUEUES } from "@chorus/contracts";
import { createMetrics, readQueueDepths } from "@chorus/platform/metrics";
import { INSTANCE_HEADER } from "@chorus/platform/process";
import { createTextQueue } from "@chorus/platform/queues";
import { createWorkerRedis, redisKeys, waitUntilReady, type RedisClient } from "@chorus/platform/redis";
import { Worker, type Queue } from "bullmq";
import { testLogger } from "../../../test-support/logger.js";
import { deleteKeysWithPrefix, TEST_REDIS_URL, uniquePrefix } from "../../../test-support/redis.js";
import { createHealthServer, type HealthServer } from "../src/health-server.js";

const TOKEN = "worker-metrics-token-0123456789";
const prefix = uniquePrefix("health");
const keys = redisKeys(prefix);

let connection: RedisClient;
let worker: Worker;
let queue: Queue;
let server: HealthServer;
let base: string;

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { headers });

beforeAll(async () => {
  connection = createWorkerRedis(TEST_REDIS_URL);
  await waitUntilReady(connection, 5000);
  worker = new Worker(QUEUES.text, () => Promise.resolve(), { connection, prefix: keys.bullPrefix(QUEUES.text) });
  await worker.waitUntilReady();
  queue = createTextQueue(connection, keys);
  const metrics = createMetrics("worker", { queueDepth: readQueueDepths([queue]) });
  server = createHealthServer({
    host: "127.0.0.1",
    port: 0,
    connection,
    workers: [worker],
    metrics,
    metricsToken: TOKEN,
    logger: testLogger("worker"),
  });
  base = `http://127.0.0.1:${await server.start()}`;
});
afterAll(async () => {
  await server.close();
  await worker.close();
  await queue.close();
  connection.disconnect();
  await deleteKeysWithPrefix(TEST_REDIS_URL, prefix);
});

describe("worker health server", () => {
  it("when the process runs, then /healthz answers 200 {status: ok}", async () => {
    const res = await get("/healthz");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });

  it("when Redis is connected and the worker runs, then /readyz answers 200", async () => {
    const res = await get("/readyz");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: "ready",
      redis: "ready",
      workers: [{ queue: QUEUES.text, running: true }],
    });
  });

  it("when METRICS_TOKEN is set, then /metrics answers 401 in the error envelope without it and the worker's metrics with it", async () => {
    const missing = await get("/metrics");
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: { code: "UNAUTHORIZED" }, status: "error" });
    expect((await get("/metrics", { Authorization: "Bearer wrong" })).status).toBe(401);

    const res = await get("/metrics", { Authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    for (const name of [
      "jobs_total",
      "generation_tokens_total",
      "generation_tokens_per_second",
      "generation_duration_seconds",
      "speech_audio_seconds_total",
      "speech_synthesis_duration_seconds",
      "queue_depth",
    ]) {
      expect(text).toContain(`# TYPE ${name} `);
    }
    expect(text).toContain(`queue_depth{queue="${QUEUES.text}",state="waiting"} 0`);
    expect(text).not.toContain("http_requests_total");
  });

  it("when a path is unknown or the method is not GET, then the answer is a JSON error (404, 405)", async () => {
    const missing = await get("/nope");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: "NOT_FOUND" }, status: "error" });
    expect((await fetch(`${base}/readyz`, { method: "POST" })).status).toBe(405);
  });

  it("when Redis is not connected, then /readyz answers 503 and names the connection state", async () => {
    const idle = createWorkerRedis(TEST_REDIS_URL, { lazyConnect: true });
    const probe = createHealthServer({
      host: "127.0.0.1",
      port: 0,
      connection: idle,
      workers: [worker],
      metrics: createMetrics("worker"),
    });
    try {
      const res = await fetch(`http://127.0.0.1:${await probe.start()}/readyz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ status: "unavailable", redis: "wait" });
    } finally {
      await probe.close();
      idle.disconnect();
    }
  });

  it("when its port is taken, then it takes a free one if the port was the default, and names WORKER_HTTP_PORT if it was chosen", async () => {
    const taken = Number(new URL(base).port);
    const options = { host: "127.0.0.1", port: taken, connection, workers: [worker], metrics: createMetrics("worker") };
    const chosen = createHealthServer(options);
    await expect(chosen.start()).rejects.toThrow(
      `cannot listen on 127.0.0.1:${taken}: port ${taken} is already in use by another program; stop it, or set WORKER_HTTP_PORT to a free port`,
    );
    const byDefault = createHealthServer({ ...options, freePortWhenTaken: true });
    try {
      const port = await byDefault.start();
      expect(port).not.toBe(taken);
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    } finally {
      await Promise.all([byDefault.close(), chosen.close()]);
    }
  });

  it("when it is given this run's instance id, then /healthz and /readyz answer it in X-Chorus-Instance (npm start knows its own worker)", async () => {
    const named = createHealthServer({
      host: "127.0.0.1",
      port: 0,
      connection,
      workers: [worker],
      metrics: createMetrics("worker"),
      instanceId: "run-42",
    });
    try {
      const port = await named.start();
      for (const path of ["/healthz", "/readyz"])
        expect((await fetch(`http://127.0.0.1:${port}${path}`)).headers.get(INSTANCE_HEADER)).toBe("run-42");
      expect((await get("/healthz")).headers.get(INSTANCE_HEADER)).toBeNull();
    } finally {
      await named.close();
    }
  });

  // Last: it closes the shared worker.
  it("when the worker is closed, then /readyz answers 503 while /healthz still answers 200", async () => {
    await worker.close();
    const res = await get("/readyz");
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({
      status: "unavailable",
      workers: [{ queue: QUEUES.text, running: false }],
    });
    expect((await get("/healthz")).status).toBe(200);
  });
});
