import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { ModelFeatures } from "@chorus/platform/scheduler";
import OpenAI from "openai";
import { describeWithModel } from "../../../test-support/fixtures.js";
import type { TestGateway } from "../../../test-support/gateway.js";
import { startOpenAiStack, type OpenAiStack } from "../../../test-support/openai-stack.js";
import { LLAMA_SERVER_BINARY, loadFixtureEngine } from "../../../test-support/worker.js";

const STORY = "Tell me a long story about a brave cat and a little dog.";

/**
 * The extra sampling fields and reproducible replies on /v1/chat/completions, through the official
 * `openai` client, with the real worker on llama-server and the fixture model.
 */
describeWithModel("sampling fields on /v1/chat/completions (llama-server, stories260K-chatml)", () => {
  let stack: OpenAiStack;
  let gw: TestGateway;
  let client: OpenAI;

  beforeAll(async () => {
    if (!LLAMA_SERVER_BINARY) throw new Error("these tests need llama-server: run `npm run llama:build`");
    // Three slots: a burst is decoded in one batch, as under load.
    const engine = await loadFixtureEngine(3, 1024, "server");
    stack = await startOpenAiStack("openai-sampling", engine, { worker: { concurrency: 3 } });
    ({ gw, client } = stack);
  }, 120_000);
  afterAll(() => stack.close(), 60_000);

  type Params = Omit<OpenAI.ChatCompletionCreateParamsNonStreaming, "model" | "messages"> & Record<string, unknown>;
  const reply = async (params: Params, content = STORY): Promise<string> => {
    const completion = await client.chat.completions.create({
      model: "default",
      messages: [{ role: "user", content }],
      max_tokens: 40,
      ...params,
    } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    return completion.choices[0]?.message.content ?? "";
  };

  describe("reproducible replies", () => {
    it("when a burst of identical requests ran, then the same seeded request twice still gives one reply", async () => {
      const seeded = { seed: 4242, temperature: 1, max_tokens: 150 };
      const alone = await reply(seeded);
      await Promise.all(Array.from({ length: 6 }, () => reply({ temperature: 1, max_tokens: 150 })));
      const afterBurst = [await reply(seeded), await reply(seeded)];
      expect(afterBurst).toEqual([alone, alone]);
    }, 120_000);

    it("when seeded requests run in a burst (one batch), then each gives the reply it gives alone", async () => {
      const seeds = [1000, 1001, 1002, 1003, 1004, 1005];
      const alone = [];
      for (const seed of seeds) alone.push(await reply({ seed, temperature: 1, max_tokens: 150 }));
      const bursts = [];
      for (const seed of seeds)
        bursts.push(await Promise.all([1, 2, 3].map(() => reply({ seed, temperature: 1, max_tokens: 150 }))));
      expect(bursts).toEqual(alone.map((text) => [text, text, text]));
    }, 240_000);

    it("when temperature is 0, then the reply is the greedy one whatever the seed, and the same twice", async () => {
      const greedy = await reply({ temperature: 0, max_tokens: 150 });
      const burst = await Promise.all(
        Array.from({ length: 4 }, (_, at) => reply(at % 2 ? { temperature: 0, max_tokens: 150 } : { temperature: 1 })),
      );
      expect(burst.filter((_, at) => at % 2)).toEqual([greedy, greedy]);
      expect(await reply({ temperature: 0, seed: 1, max_tokens: 150 })).toBe(greedy);
      // Greedy is what top_k 1 samples too, at any temperature and seed.
      expect(await reply({ temperature: 1.5, seed: 3, top_k: 1, max_tokens: 150 })).toBe(greedy);
    }, 120_000);
  });

  describe("each extra sampling field reaches llama-server", () => {
    const base = { seed: 7, temperature: 1.5, max_tokens: 60 };
    it.each([
      ["top_k", { top_k: 1 }],
      ["min_p", { min_p: 0.5 }],
      ["typical_p", { typical_p: 0.2 }],
      ["presence_penalty", { presence_penalty: 2 }],
      ["frequency_penalty", { frequency_penalty: 2 }],
      ["repetition_penalty", { repetition_penalty: 2 }],
      ["logit_bias", { logit_bias: { "100": 100 } }],
    ])(
      "when %s is set, then the seeded reply changes",
      async (_field, knob) => {
        const plain = await reply(base);
        expect(await reply({ ...base, ...knob })).not.toBe(plain);
      },
      60_000,
    );

    it("when logit_bias pushes one token by 100 at temperature 0, then the reply is that token over and over", async () => {
      const biased = await reply({ temperature: 0, max_tokens: 20, logit_bias: { "100": 100 } });
      const greedy = await reply({ temperature: 0, max_tokens: 20 });
      expect(biased).not.toBe(greedy);
      const piece = biased.slice(0, biased.length / 20);
      expect(biased.length % 20 === 0 && piece.repeat(20) === biased).toBe(true);
    }, 60_000);
  });

  describe("fields the model's engine cannot honour", () => {
    it("when the engine does not take a field (as its worker published), then 400 names it and nothing runs", async () => {
      await new ModelFeatures(gw.deps.redis, gw.deps.keys.modelFeatures()).publish({
        Mage: { sampling: ["top_k"], responseFormats: [] },
      });
      const refused = client.chat.completions.create({
        model: "Mage",
        messages: [{ role: "user", content: "Hi" }],
        top_k: 5,
        typical_p: 0.5,
      } as OpenAI.ChatCompletionCreateParamsNonStreaming);
      await expect(refused).rejects.toMatchObject({ status: 400, param: "typical_p" });
      const format = client.chat.completions.create({
        model: "Mage",
        messages: [{ role: "user", content: "Hi" }],
        response_format: { type: "json_object" },
      });
      await expect(format).rejects.toMatchObject({ status: 400, param: "response_format" });
    });
  });
});
