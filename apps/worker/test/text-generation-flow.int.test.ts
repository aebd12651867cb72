import { afterAll, beforeAll, expect, it } from "@jest/globals";
import { MODEL_IDS, type StatusRecord } from "@chorus/contracts";
import request from "supertest";
import type { LlmEngine } from "../src/engines/llm/llm-engine.js";
import { characterRequest, defaultRequest, describeWithModel } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { submittedId } from "../../../test-support/response-body.js";
import { loadFixtureEngine, startTestWorker, type TestWorker } from "../../../test-support/worker.js";
import { finalRecord } from "../../../test-support/records.js";
import { waitFor } from "../../../test-support/wait-for.js";

describeWithModel("a conversation through gateway, queue and worker (stories260K-chatml)", () => {
  let gw: TestGateway;
  let worker: TestWorker;
  let engine: LlmEngine;
  let key: string;

  beforeAll(async () => {
    const prefix = uniquePrefix("flow");
    gw = await startTestGateway(prefix);
    engine = await loadFixtureEngine();
    worker = await startTestWorker(prefix, engine);
    key = await gw.createKey({ limits: { status: 1_000_000 } });
  });
  afterAll(async () => {
    await worker.close();
    await engine.close();
    await gw.close();
  }, 60_000);

  /** Polls like a client until the record leaves `processing`; returns every record seen. */
  async function pollUntilDone(path: string): Promise<StatusRecord[]> {
    const seen: StatusRecord[] = [];
    await waitFor(
      `${path} to leave processing`,
      async () => {
        const res = await request(gw.app).get(path).auth(key, { type: "bearer" });
        expect(res.status).toBe(200);
        const record = res.body as StatusRecord;
        seen.push(record);
        return record.status !== "processing";
      },
      { timeoutMs: 60_000, intervalMs: 10 },
    );
    return seen;
  }

  it.each(MODEL_IDS)(
    "when a conversation goes to %s, then the record goes processing -> completed with a generated reply",
    async (model) => {
      const body = model === "default" ? defaultRequest() : characterRequest();
      const submitted = await request(gw.app)
        .post(`/api/text/${model}`)
        .auth(key, { type: "bearer" })
        .send({ ...body, samplingParams: { max_tokens: 60 } });
      expect(submitted.status).toBe(200);
      const id = submittedId(submitted);

      const seen = await pollUntilDone(`/api/v2/status/${id}`);
      const final = seen.at(-1)!;
      expect(seen[0]!.status).toBe("processing");
      expect(final).toEqual({
        status: "completed",
        reply: expect.any(String),
        tokens: expect.any(Number),
        promptTokens: expect.any(Number),
        cachedTokens: expect.any(Number),
        processingTime: expect.any(Number),
        droppedMessages: expect.any(Number),
        finishReason: expect.stringMatching(/^(stop|length)$/),
        maxTokens: 60,
      });
      expect(final.reply!.trim().length).toBeGreaterThan(0);
      expect(final.tokens).toBeGreaterThan(0);
      expect(final.tokens).toBeLessThanOrEqual(60);
      // The engine's own word: a reply cut at the limit has all of its tokens.
      if (final.finishReason === "length") expect(final.tokens).toBe(60);
      expect(final.processingTime).toBeGreaterThan(0);

      const progress = seen.filter((r) => r.status === "processing").map((r) => r.progress ?? 0);
      expect(progress.every((p, i) => p >= 0 && p < 1 && (i === 0 || p >= progress[i - 1]!))).toBe(true);

      const v1 = await request(gw.app).get(`/api/status/${id}`).auth(key, { type: "bearer" });
      expect(v1.body).toEqual(final);
    },
  );

  it("when a job is streaming, then progress and estimatedTimeRemaining (seconds) appear before completion", async () => {
    const submitted = await request(gw.app)
      .post("/api/text/default")
      .auth(key, { type: "bearer" })
      .send({ ...defaultRequest(), samplingParams: { max_tokens: 400, temperature: 1.2 } });
    const seen = await pollUntilDone(`/api/v2/status/${submittedId(submitted)}`);
    const streaming = seen.filter((r) => r.status === "processing" && (r.progress ?? 0) > 0);
    // A short reply can finish between two polls; a 400-token budget at 1.2 rarely does, but only
    // assert on what was actually observed.
    for (const r of streaming) {
      expect(r.progress).toBeGreaterThan(0);
      expect(r.progress).toBeLessThan(1);
      expect(r.estimatedTimeRemaining).toBeGreaterThanOrEqual(0);
    }
    expect(seen.at(-1)!.status).toBe("completed");
  });

  it("when the conversation is longer than the model's context, then the oldest messages are dropped and counted", async () => {
    const messages = Array.from({ length: 80 }, (_, index) => ({
      role: index % 2 === 0 ? "You" : "Bot",
      content: `Message ${index}: the little cat walked to the big red barn and met a dog.`,
      index,
    }));
    const submitted = await request(gw.app)
      .post("/api/text/default")
      .auth(key, { type: "bearer" })
      .send({ messages, samplingParams: { max_tokens: 30 } });
    const final = (await pollUntilDone(`/api/v2/status/${submittedId(submitted)}`)).at(-1)!;
    expect(final.status).toBe("completed");
    expect(final.droppedMessages).toBeGreaterThan(0);
    expect(final.droppedMessages).toBeLessThan(80);
  });

  it("when the engine fails for good, then the record becomes error with a reason", async () => {
    const failing = {
      name: "failing",
      contextTokens: 4096,
      countPromptTokens: () => Promise.resolve(1),
      generate: () => Promise.reject(new Error("model exploded")),
      close: () => Promise.resolve(),
    };
    const prefix = uniquePrefix("flow-fail");
    const gw2 = await startTestGateway(prefix);
    const w2 = await startTestWorker(prefix, failing);
    try {
      const k = await gw2.createKey();
      const res = await request(gw2.app).post("/api/text/default").auth(k, { type: "bearer" }).send(defaultRequest());
      // Retries use exponential backoff (1 s, 2 s): the third failure is final.
      expect(await finalRecord(gw2.app, k, submittedId(res))).toEqual({
        status: "error",
        error: "generation failed: model exploded",
        errorCode: "generation_failed",
      });
    } finally {
      await w2.close();
      await gw2.close();
    }
  });
});
