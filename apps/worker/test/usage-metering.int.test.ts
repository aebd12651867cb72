import type { StatusRecord, SynthesizeSpeechJob } from "@chorus/contracts";
import { UsageBudgetLedger } from "@chorus/platform/budgets";
import { createWorkerRedis, redisKeys, type RedisClient } from "@chorus/platform/redis";
import { UsageMeter, UsageReader, type UsageReport } from "@chorus/platform/usage";
import { UnrecoverableError, type Job } from "bullmq";
import request from "supertest";
import { defaultRequest, describeWithModel } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { testLogger } from "../../../test-support/logger.js";
import { TEST_REDIS, uniquePrefix } from "../../../test-support/redis.js";
import { submittedId } from "../../../test-support/response-body.js";
import { waitFor } from "../../../test-support/wait-for.js";
import {
  EspeakSpeechEngine,
  loadFixtureEngine,
  startTestWorker,
  synthesizeSpeechProcessor,
  type LlmEngine,
  type TestWorker,
} from "../../../test-support/worker.js";

const FAIL_FOR_GOOD = "Refuse this one for good.";

/**
 * The engine, except that its first generation fails as a hiccup would (BullMQ retries the job), and
 * a prompt saying FAIL_FOR_GOOD fails as a request no retry can mend.
 */
function failingFirst(engine: LlmEngine): { engine: LlmEngine; failures: () => number } {
  let failures = 0;
  const generate: LlmEngine["generate"] = (options) => {
    if (JSON.stringify(options.turns).includes(FAIL_FOR_GOOD))
      return Promise.reject(new UnrecoverableError("engine refused the request"));
    if (failures++ === 0) return Promise.reject(new Error("engine hiccup"));
    return engine.generate(options);
  };
  const wrapped = new Proxy(engine, {
    get: (target, name) => {
      if (name === "generate") return generate;
      const value: unknown = Reflect.get(target, name, target);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { engine: wrapped, failures: () => Math.min(failures, 1) };
}

describeWithModel("metering finished jobs into their key's usage, once", () => {
  const prefix = uniquePrefix("metering");
  let gw: TestGateway;
  let engine: LlmEngine;
  let worker: TestWorker | undefined;
  let connection: RedisClient;
  beforeAll(async () => {
    gw = await startTestGateway(prefix);
    engine = await loadFixtureEngine();
    connection = createWorkerRedis(TEST_REDIS);
  }, 120_000);
  afterAll(async () => {
    await worker?.close();
    await engine.close();
    connection.disconnect();
    await gw.close();
  }, 60_000);

  async function usageOf(key: string): Promise<UsageReport> {
    const res = await request(gw.app).get("/api/v2/usage?groupBy=model").auth(key, { type: "bearer" });
    expect(res.status).toBe(200);
    return res.body as UsageReport;
  }

  it("when a queued request is cancelled, then its key's usage counts one cancelled request and no tokens", async () => {
    const key = await gw.createKey();
    const submitted = await request(gw.app)
      .post("/api/text/default")
      .auth(key, { type: "bearer" })
      .send(defaultRequest());
    expect(submitted.status).toBe(200);
    const cancelled = await request(gw.app)
      .delete(`/api/v2/status/${submittedId(submitted)}`)
      .auth(key, { type: "bearer" });
    expect(cancelled.status).toBe(200);
    const usage = await usageOf(key);
    expect(usage.buckets).toEqual([
      {
        model: "default",
        requests: { completed: 0, error: 0, cancelled: 1 },
        promptTokens: 0,
        cachedPromptTokens: 0,
        completionTokens: 0,
        characters: 0,
        audioSeconds: 0,
      },
    ]);
    // Another key sees none of it.
    expect((await usageOf(await gw.createKey())).buckets).toEqual([]);
  });

  it("when a text job's first attempt fails and BullMQ's retry completes it, then it counts once: completed, with the record's tokens", async () => {
    const flaky = failingFirst(engine);
    worker = await startTestWorker(prefix, flaky.engine);
    const key = await gw.createKey();
    const submitted = await request(gw.app)
      .post("/api/text/default")
      .auth(key, { type: "bearer" })
      .send(defaultRequest());
    expect(submitted.status).toBe(200);
    let record: StatusRecord | undefined;
    for (let waits = 0; waits < 10 && record?.status !== "completed"; waits++) {
      const res = await request(gw.app)
        .get(`/api/v2/status/${submittedId(submitted)}`)
        .auth(key, { type: "bearer" })
        .set("Prefer", "wait=10");
      record = res.body as StatusRecord;
      expect(["processing", "completed"]).toContain(record.status);
    }
    expect(record?.status).toBe("completed");
    expect(flaky.failures()).toBe(1);
    // The record turns final, then its writer meters it: wait for a count, then check it is the one.
    const usage = await waitFor("the completion metered", async () => {
      const read = await usageOf(key);
      return read.total.requests.completed > 0 ? read : null;
    });
    expect(usage.total).toEqual({
      requests: { completed: 1, error: 0, cancelled: 0 },
      promptTokens: record!.promptTokens,
      cachedPromptTokens: record!.cachedTokens ?? 0,
      completionTokens: record!.tokens,
      characters: 0,
      audioSeconds: 0,
    });
  }, 120_000);

  it("when a text job fails for good, then it counts once as an error, with no tokens", async () => {
    const key = await gw.createKey();
    const submitted = await request(gw.app)
      .post("/api/text/default")
      .auth(key, { type: "bearer" })
      .send(defaultRequest(FAIL_FOR_GOOD));
    expect(submitted.status).toBe(200);
    const res = await request(gw.app)
      .get(`/api/v2/status/${submittedId(submitted)}`)
      .auth(key, { type: "bearer" })
      .set("Prefer", "wait=30");
    expect((res.body as StatusRecord).status).toBe("error");
    // The worker's `failed` listener writes the record, then meters it: the record may be read first.
    const usage = await waitFor("the failure metered", async () => {
      const read = await usageOf(key);
      return read.total.requests.error > 0 ? read : null;
    });
    expect(usage.total).toEqual({
      requests: { completed: 0, error: 1, cancelled: 0 },
      promptTokens: 0,
      cachedPromptTokens: 0,
      completionTokens: 0,
      characters: 0,
      audioSeconds: 0,
    });
  }, 60_000);

  it("when a speech job's processor runs again after it completed (a lapsed lock's second run), then it counts once", async () => {
    const speech = new EspeakSpeechEngine({ concurrency: 1 });
    const keys = redisKeys(prefix);
    try {
      const processor = synthesizeSpeechProcessor({
        speech,
        connection,
        keys,
        logger: testLogger("worker"),
        audioTtlSeconds: 60,
        meter: new UsageMeter(connection, keys, testLogger("usage")),
        budgets: new UsageBudgetLedger(connection, keys),
      });
      const text = "Twice told, once counted.";
      const data: SynthesizeSpeechJob = {
        requestId: `speech-${prefix}`,
        keyId: "key_speech_twice",
        request: { text, voice: "en-us-female", speed: 1, format: "wav" },
        acceptedAt: Date.now(),
      };
      const job = { data, attemptsMade: 0, opts: { attempts: 2 } } as unknown as Job<SynthesizeSpeechJob>;
      const first = await processor(job);
      const second = await processor({ ...job, attemptsMade: 1 } as Job<SynthesizeSpeechJob>);
      expect(second.durationSeconds).toBe(first.durationSeconds);
      const day = new Date().toISOString().slice(0, 10);
      const report = await new UsageReader(connection, keys).report(data.keyId, {
        from: day,
        to: day,
        groupBy: "model",
      });
      expect(report.buckets).toEqual([
        {
          model: speech.name,
          requests: { completed: 1, error: 0, cancelled: 0 },
          promptTokens: 0,
          cachedPromptTokens: 0,
          completionTokens: 0,
          characters: text.length,
          audioSeconds: Math.round((first.durationSeconds ?? 0) * 1000) / 1000,
        },
      ]);
      expect(report.total.audioSeconds).toBeGreaterThan(0);
    } finally {
      await speech.close();
    }
  }, 60_000);
});
