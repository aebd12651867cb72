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
    let keyC: string;
    let keyD: string;
    let operatorTokens: number;

    beforeAll(async () => {
      const prefix = uniquePrefix("cachekeys");
      gw = await startTestGateway(prefix);
      engine = await loadFixtureEngine(2, 2048, runtime);
      worker = await startTestWorker(prefix, engine, { concurrency: 2 });
      const limits = { limits: { text: 1_000_000, status: 1_000_000 } };
      [keyA, keyB, keyC, keyD] = (await Promise.all([1, 2, 3, 4].map(() => gw.createKey(limits)))) as [
        string,
        string,
        string,
        string,
      ];
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

    /** A unique prompt of ~1,200 tokens (110 words the fixture model's tokenizer splits finely). */
    function uniquePrompt(seed: string) {
      const words = Array.from({ length: 110 }, (_, i) => `${seed}${(i * 7919 + Date.now()) % 100_000}`).join(" ");
      return {
        messages: [{ role: "You", content: `Remember these: ${words}`, index: 0 }],
        samplingParams: { max_tokens: 4 },
      };
    }

    it("when key B sends the prompt key A sent twice, then B reuses only the operator's part, as for a prompt nobody sent", async () => {
      const body = uniquePrompt("word");
      const firstOfA = await generate(keyA, body);
      const secondOfA = await generate(keyA, body);
      expect(firstOfA.promptTokens).toBeGreaterThan(900);
      expect(secondOfA.cachedTokens).toBeGreaterThanOrEqual(secondOfA.promptTokens! - 1);

      const ofB = await generate(keyB, body);
      expect(ofB).toMatchObject({ status: "completed", promptTokens: firstOfA.promptTokens });
      // B read its prompt from the operator's boundary: nothing of A's past it was reused.
      expect(ofB.cachedTokens).toBeLessThanOrEqual(operatorTokens);
      expect(operatorTokens).toBeLessThan(ofB.promptTokens! / 3);
      // B's own copy is B's: its second send is cached.
      const secondOfB = await generate(keyB, body);
      expect(secondOfB.cachedTokens).toBeGreaterThanOrEqual(secondOfB.promptTokens! - 1);
      // A prompt nobody sent, on a slot another key holds, reuses exactly as much: B learns nothing.
      const ofC = await generate(keyC, uniquePrompt("ward"));
      expect(ofC.cachedTokens).toBe(ofB.cachedTokens);
      // The operator's part is reused all the same (not read again from the start).
      expect(ofB.cachedTokens).toBeGreaterThan(operatorTokens / 2);

      // llama-server keeps A's cache for A (saved when B took its slot), restored for A only.
      if (runtime === "server") {
        const thirdOfA = await generate(keyA, body);
        expect(thirdOfA.cachedTokens).toBeGreaterThanOrEqual(thirdOfA.promptTokens! - 1);
      }
      // B's copy is now kept beyond the slots too (saved when C took its slot): never restored for another key.
      const ofD = await generate(keyD, body);
      expect(ofD.cachedTokens).toBe(ofB.cachedTokens);
    }, 120_000);
  }),
);
