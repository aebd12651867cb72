import request from "supertest";
import type { LlmEngine } from "../src/engines/llm/llm-engine.js";
import { loadCharacterCatalog } from "../src/characters/character-catalog.js";
import { operatorTurns } from "../src/prompt/build-chat-turns.js";
import { describeWithModel } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { submittedId } from "../../../test-support/response-body.js";
import {
  describeEachLlamaRuntime,
  loadFixtureEngine,
  startTestWorker,
  type TestWorker,
} from "../../../test-support/worker.js";
import { finalRecord } from "../../../test-support/records.js";

/**
 * The prompt cache never crosses API keys beyond the operator's own text (the character's system
 * turn): a key that sends another key's prompt reads it all again past that part, so neither
 * `cachedTokens` nor the time it takes tells it whether the other key sent it.
 */
describeWithModel("prompt cache scoped per API key (stories260K-chatml)", () =>
  describeEachLlamaRuntime("prompt cache scoped per API key", (runtime) => {
    let gw: TestGateway;
    let worker: TestWorker;
    let engine: LlmEngine;
    let keyA: string;
    let keyB: string;
    let operatorTokens: number;

    beforeAll(async () => {
      const prefix = uniquePrefix("cachekeys");
      gw = await startTestGateway(prefix);
      engine = await loadFixtureEngine(2, 2048, runtime);
      worker = await startTestWorker(prefix, engine, { concurrency: 2 });
      const limits = { limits: { text: 1_000_000, status: 1_000_000 } };
      [keyA, keyB] = [await gw.createKey(limits), await gw.createKey(limits)];
      const { default: character } = await loadCharacterCatalog();
      // The operator's system turn as a prompt of its own (with the reply's opening): at least the shared part.
      operatorTokens = await engine.countPromptTokens(operatorTurns(character));
    });
    afterAll(async () => {
      await worker.close();
      await engine.close();
      await gw.close();
    }, 60_000);

    async function generate(key: string, body: object) {
      const res = await request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).send(body);
      expect(res.status).toBe(200);
      return finalRecord(gw.app, key, submittedId(res));
    }

    it("when key B sends the prompt key A sent twice, then B's cachedTokens is at most the operator's part, and A's own cache is kept", async () => {
      const words = Array.from({ length: 110 }, (_, i) => `word${(i * 7919 + Date.now()) % 100_000}`).join(" ");
      const body = {
        messages: [{ role: "You", content: `Remember these: ${words}`, index: 0 }],
        samplingParams: { max_tokens: 4 },
      };

      const firstOfA = await generate(keyA, body);
      const secondOfA = await generate(keyA, body);
      expect(firstOfA.promptTokens).toBeGreaterThan(900);
      expect(secondOfA.cachedTokens).toBeGreaterThanOrEqual(secondOfA.promptTokens! - 1);

      const ofB = await generate(keyB, body);
      expect(ofB).toMatchObject({ status: "completed", promptTokens: firstOfA.promptTokens });
      // B read its prompt from the operator's boundary at the latest: nothing of A's past it was reused.
      expect(ofB.cachedTokens).toBeLessThanOrEqual(operatorTokens);
      expect(operatorTokens).toBeLessThan(ofB.promptTokens! / 3);

      // B's own copy is B's: its second send is cached.
      const secondOfB = await generate(keyB, body);
      expect(secondOfB.cachedTokens).toBeGreaterThanOrEqual(secondOfB.promptTokens! - 1);
      // llama-server keeps A's cache for A (saved when B took its slot), restored for A only.
      if (runtime === "server") {
        const thirdOfA = await generate(keyA, body);
        expect(thirdOfA.cachedTokens).toBeGreaterThanOrEqual(thirdOfA.promptTokens! - 1);
      }
    }, 120_000);
  }),
);
