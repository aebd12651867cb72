import request from "supertest";
import type { LlmEngine } from "../src/engines/llm/llm-engine.js";
import { defaultRequest, describeWithModel } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { errorOf, submittedId } from "../../../test-support/response-body.js";
import {
  describeEachLlamaRuntime,
  loadFixtureEngine,
  startTestWorker,
  type TestWorker,
} from "../../../test-support/worker.js";
import { waitFor } from "../../../test-support/wait-for.js";
import { finalRecord } from "../../../test-support/records.js";

/**
 * The worker's slots, prompt cache and seeds, through the real gateway, queue and llama.cpp engine,
 * on both ways of running llama.cpp: llama-server (the default) and in process.
 */
describeWithModel("slots, prompt cache and seeds (stories260K-chatml)", () =>
  describeEachLlamaRuntime("slots, prompt cache and seeds", (runtime) => {
    const CONCURRENCY = 2;
    let gw: TestGateway;
    let worker: TestWorker;
    let engine: LlmEngine;
    let key: string;
    const failedAttempts: string[] = [];
    const attemptsStarted = new Map<string, number>();

    beforeAll(async () => {
      const prefix = uniquePrefix("slots");
      gw = await startTestGateway(prefix);
      // The model's whole context: a long conversation fits
      engine = await loadFixtureEngine(CONCURRENCY, 2048, runtime);
      worker = await startTestWorker(prefix, engine, { concurrency: CONCURRENCY });
      const [text] = worker.workers;
      text?.on("failed", (job, error) =>
        failedAttempts.push(`${String(job?.id)} attempt ${String(job?.attemptsMade)}: ${error.message}`),
      );
      text?.on("completed", (job) => attemptsStarted.set(String(job.id), job.attemptsStarted));
      key = await gw.createKey({ limits: { text: 1_000_000, status: 1_000_000 } });
    });
    afterAll(async () => {
      await worker.close();
      await engine.close();
      await gw.close();
    }, 60_000);

    async function submit(body: object): Promise<string> {
      const res = await request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).send(body);
      expect(res.status).toBe(200);
      return submittedId(res);
    }

    const final = (id: string) => finalRecord(gw.app, key, id);
    const generate = async (body: object) => final(await submit(body));

    it("when a burst of 10 x WORKER_CONCURRENCY jobs arrives at once, then every job completes on its first attempt", async () => {
      const bodies = Array.from({ length: 10 * CONCURRENCY }, (_, i) => ({
        ...defaultRequest(`Tell story number ${i}.`),
        samplingParams: { max_tokens: 24 },
      }));
      const ids = await Promise.all(bodies.map((body) => submit(body)));
      const records = await Promise.all(ids.map((id) => final(id)));
      expect(records.map((r) => r.status)).toEqual(ids.map(() => "completed"));
      // The completed events of this process may trail the records by a moment.
      await waitFor("every job's attempt seen", () => ids.every((id) => attemptsStarted.has(id)), {
        timeoutMs: 5000,
        intervalMs: 20,
      });
      expect(failedAttempts).toEqual([]);
      expect(ids.map((id) => attemptsStarted.get(id))).toEqual(ids.map(() => 1));
    });

    it("when the next turn of a 20-message conversation arrives, then most of its prompt comes from the cache", async () => {
      const history = Array.from({ length: 20 }, (_, i) => ({
        role: i % 2 === 0 ? "You" : "Bot",
        content: `Line ${i} of our chat about cats.`,
        index: i,
      }));
      const first = await generate({ messages: history, samplingParams: { max_tokens: 12 } });
      expect(first.status).toBe("completed");
      const nextTurn = [
        ...history,
        { role: "Bot", content: first.reply, index: 20 },
        { role: "You", content: "And then?", index: 21 },
      ];
      const second = await generate({ messages: nextTurn, samplingParams: { max_tokens: 12 } });
      expect(second).toMatchObject({ status: "completed", droppedMessages: 0 });
      expect(second.promptTokens).toBeGreaterThan(first.promptTokens!);
      expect(second.cachedTokens).toBeGreaterThanOrEqual(0.6 * second.promptTokens!);
      expect(second.cachedTokens).toBeLessThan(second.promptTokens!);
    });

    it("when the same request is sent twice at temperature 1 without a seed, then the replies differ", async () => {
      const body = { ...defaultRequest("Tell me a story."), samplingParams: { max_tokens: 40, temperature: 1 } };
      const [a, b] = [await generate(body), await generate(body)];
      expect(a.status).toBe("completed");
      expect(b.reply).not.toBe(a.reply);
    });

    it("when the same request is sent twice with the same seed, then the replies are identical", async () => {
      const body = {
        ...defaultRequest("Tell me a story."),
        samplingParams: { max_tokens: 40, temperature: 1, seed: 1234567 },
      };
      const [a, b] = [await generate(body), await generate(body)];
      expect(a.status).toBe("completed");
      expect(a.reply!.length).toBeGreaterThan(0);
      expect(b.reply).toBe(a.reply);
    });

    it.each([1.5, -1, "7", 2 ** 32])(
      "when samplingParams.seed is %j, then it is 400 INVALID_PARAMETER naming it",
      async (seed) => {
        const res = await request(gw.app)
          .post("/api/text/default")
          .auth(key, { type: "bearer" })
          .send({ ...defaultRequest(), samplingParams: { seed } });
        expect(res.status).toBe(400);
        expect(errorOf(res)).toMatchObject({
          code: "INVALID_PARAMETER",
          details: { parameter: "samplingParams.seed", expected_type: "integer" },
        });
      },
    );
  }),
);
