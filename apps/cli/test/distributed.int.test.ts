import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiKeyStore } from "@chorus/platform/api-keys";
import { createWorkerRedis, redisKeys } from "@chorus/platform/redis";
import { freePortRun, startChild, startPrivateRedis, type PrivateRedis } from "@chorus/local-runtime";
import { defaultRequest, describeWithModel, FIXTURE_MODEL } from "../../../test-support/fixtures.js";
import { START_SCRIPT } from "../../../test-support/local-service.js";
import { waitFor } from "../../../test-support/wait-for.js";
import { finalRecord } from "../../../test-support/records.js";

/** `npm start -- --gateways G --workers W` as a real process tree on a private Redis. */
async function startService(redisUrl: string, gateways: number, workers: number) {
  // Gateway i listens on PORT + i: every one of them must be free, not only the first.
  const port = await freePortRun(gateways);
  const child = startChild("npm start", process.execPath, {
    args: [START_SCRIPT, "--gateways", String(gateways), "--workers", String(workers)],
    env: {
      PATH: process.env.PATH ?? "",
      REDIS_URL: redisUrl,
      PORT: String(port),
      LLM_MODEL: FIXTURE_MODEL,
      LLM_THREADS: "1",
      WORKER_CONCURRENCY: "1",
      JOB_LOCK_MS: "5000",
      LOG_LEVEL: "warn",
      TTS_ENGINE: "none",
      WORKER_HTTP_PORT: "0",
    },
  });
  await waitFor(
    "every gateway listening",
    () => (child.output().match(/gateway listening on/g) ?? []).length >= gateways,
    {
      timeoutMs: 60_000,
      stopWhen: () => (child.process.exitCode !== null ? `npm start exited:\n${child.output()}` : undefined),
    },
  );
  const urls = Array.from({ length: gateways }, (_, i) => `http://127.0.0.1:${port + i}`);
  return { urls, output: () => child.output(), stop: () => child.kill("SIGTERM") };
}

async function createKey(redisUrl: string, limits = {}): Promise<string> {
  const redis = createWorkerRedis(redisUrl);
  try {
    return (await new ApiKeyStore(redis, redisKeys("chorus")).create(`k${Math.random()}`, ["*"], limits)).secret;
  } finally {
    redis.disconnect();
  }
}

const post = (url: string, key: string, body: object) =>
  fetch(`${url}/api/text/default`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

/** Each request's final status, in order (a hang guard of `budgetMs` for each, not a timing). */
async function waitForAll(url: string, key: string, ids: string[], budgetMs: number): Promise<string[]> {
  const finals: string[] = [];
  for (const id of ids) finals.push((await finalRecord(url, key, id, budgetMs)).status);
  return finals;
}

describeWithModel("the service as real processes on one private Redis", () => {
  let redis: PrivateRedis;
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "chorus-redis-"));
    redis = await startPrivateRedis(["--appendonly", "yes", "--appendfsync", "always", "--dir", dataDir]);
  });
  afterEach(async () => {
    await redis.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("when 150 requests are spread over 2 gateways, then exactly 100 are accepted and 2 workers complete every one", async () => {
    const service = await startService(redis.url, 2, 2);
    try {
      const key = await createKey(redis.url, { status: 1_000_000 });
      const body = { ...defaultRequest(), samplingParams: { max_tokens: 4 } };
      const responses = await Promise.all(Array.from({ length: 150 }, (_, i) => post(service.urls[i % 2]!, key, body)));
      const accepted = responses.filter((r) => r.status === 200);
      expect(accepted).toHaveLength(100);
      expect(responses.filter((r) => r.status === 429)).toHaveLength(50);
      const ids = await Promise.all(accepted.map(async (r) => ((await r.json()) as { id: string }).id));
      const finals = await waitForAll(service.urls[1]!, key, ids, 240_000);
      expect(finals.filter((s) => s === "completed")).toHaveLength(100);
    } finally {
      await service.stop();
    }
  }, 300_000);

  it("when Redis restarts mid-run, then the gateway answers 503 meanwhile, recovers, and no accepted job is lost", async () => {
    const service = await startService(redis.url, 1, 1);
    try {
      const key = await createKey(redis.url, { status: 1_000_000 });
      const url = service.urls[0]!;
      const body = { ...defaultRequest(), samplingParams: { max_tokens: 150 } };
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) ids.push(((await (await post(url, key, body)).json()) as { id: string }).id);

      const port = Number(new URL(redis.url).port);
      await redis.stop();
      const during = await post(url, key, body);
      expect(during.status).toBe(503);
      redis = await startPrivateRedis(["--appendonly", "yes", "--appendfsync", "always", "--dir", dataDir], { port });

      const after = await waitFor(
        "a submit accepted once Redis is back",
        async () => {
          const res = await post(url, key, body);
          return res.status === 200 ? res : undefined;
        },
        { timeoutMs: 10_000, intervalMs: 200 },
      );
      ids.push(((await after.json()) as { id: string }).id);
      const finals = await waitForAll(url, key, ids, 240_000);
      expect(finals).toEqual(ids.map(() => "completed"));
    } finally {
      await service.stop();
    }
  }, 300_000);

  it("when Redis (AOF) restarts mid-batch, then the batch completes with every line answered once and exact counts", async () => {
    const service = await startService(redis.url, 1, 1);
    try {
      const key = await createKey(redis.url, { status: 1_000_000, text: 1_000_000 });
      const url = service.urls[0]!;
      const auth = { Authorization: `Bearer ${key}` };
      const lines = Array.from({ length: 20 }, (_, i) =>
        JSON.stringify({
          custom_id: `r${i}`,
          method: "POST",
          url: "/v1/chat/completions",
          body: { model: "default", messages: [{ role: "user", content: `Story ${i}` }], max_tokens: 40, seed: i },
        }),
      );
      const form = new FormData();
      form.append("purpose", "batch");
      form.append("file", new Blob([lines.join("\n")]), "b.jsonl");
      const file = (await (await fetch(`${url}/v1/files`, { method: "POST", headers: auth, body: form })).json()) as {
        id: string;
      };
      const created = await fetch(`${url}/v1/batches`, {
        method: "POST",
        headers: { ...auth, "Content-Type": "application/json" },
        body: JSON.stringify({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h" }),
      });
      const { id } = (await created.json()) as { id: string };
      type Batch = { status: string; request_counts: object; output_file_id: string | null };
      const read = async (): Promise<Batch | undefined> => {
        const res = await fetch(`${url}/v1/batches/${id}`, { headers: auth }).catch(() => undefined);
        return res?.status === 200 ? ((await res.json()) as Batch) : undefined;
      };
      await waitFor(
        "a few lines completed",
        async () => (((await read())?.request_counts as { completed: number } | undefined)?.completed ?? 0) >= 3,
        { timeoutMs: 120_000, intervalMs: 200 },
      );

      const port = Number(new URL(redis.url).port);
      await redis.stop();
      redis = await startPrivateRedis(["--appendonly", "yes", "--appendfsync", "always", "--dir", dataDir], { port });

      const done = await waitFor(
        "the batch final",
        async () => {
          const batch = await read();
          return batch && ["completed", "expired", "cancelled", "failed"].includes(batch.status) ? batch : undefined;
        },
        { timeoutMs: 240_000, intervalMs: 250 },
      );
      expect(done).toMatchObject({ status: "completed", request_counts: { total: 20, completed: 20, failed: 0 } });
      const output = await (await fetch(`${url}/v1/files/${done.output_file_id!}/content`, { headers: auth })).text();
      const ids = output
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => (JSON.parse(l) as { custom_id: string }).custom_id);
      expect(ids).toEqual(lines.map((_, i) => `r${i}`));
    } finally {
      await service.stop();
    }
  }, 300_000);
});
