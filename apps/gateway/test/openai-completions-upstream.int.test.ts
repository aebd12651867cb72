import { afterAll, beforeAll, expect, it } from "@jest/globals";
import type OpenAI from "openai";
import { describeWithModel } from "../../../test-support/fixtures.js";
import { startLlamaUpstream, type LlamaUpstream } from "../../../test-support/llama-upstream.js";
import { startOpenAiStack, type OpenAiStack } from "../../../test-support/openai-stack.js";
import {
  LLAMA_SERVER_BINARY,
  loadCharacterCatalog,
  OpenAiCompatibleLlmEngine,
  STOP_SEQUENCES,
  type LlmEngine,
} from "../../../test-support/worker.js";

const PROMPT = "Once upon a time, there was a little girl named Lily. She";
const REQUEST_ID = /^cmpl-([0-9a-f-]{36})$/;

/** What the upstream itself answers a greedy text completion of PROMPT (llama-server's own /v1/completions). */
async function upstreamCompletion(upstream: LlamaUpstream, maxTokens: number): Promise<OpenAI.Completion> {
  const res = await fetch(`${upstream.url}/v1/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "stories", prompt: PROMPT, max_tokens: maxTokens, temperature: 0 }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as OpenAI.Completion;
}

/**
 * POST /v1/completions on an OpenAI-compatible upstream engine, the upstream a real llama-server on
 * the fixture model: the raw prompt goes to the upstream's own /v1/completions (no chat template),
 * with the same sampling mapping as a chat. `default` is served by it; `Witch` by the same server
 * declared without completions (refused at admission, as its published features say); `Mage` by a
 * base URL where the server has nothing (404: the request ends with an error saying why).
 */
describeWithModel("/v1/completions on an OpenAI-compatible upstream (llama-server as the upstream)", () => {
  let upstream: LlamaUpstream;
  let stack: OpenAiStack;
  const engines: LlmEngine[] = [];
  /** The engine calls on the base URL without completions. */
  let missingCalls = 0;

  beforeAll(async () => {
    if (!LLAMA_SERVER_BINARY) throw new Error("these tests need llama-server: run `npm run llama:build`");
    upstream = await startLlamaUpstream();
    const engineOn = (baseUrl: string, completions: boolean) => {
      const engine = new OpenAiCompatibleLlmEngine({
        baseUrl,
        model: "stories",
        stop: STOP_SEQUENCES,
        completions,
        contextTokens: 1024,
        maxRetries: 0,
      });
      engines.push(engine);
      return engine;
    };
    const served = engineOn(`${upstream.url}/v1`, true);
    const missing = engineOn(`${upstream.url}/nothing-here/v1`, true);
    const generate = missing.generate.bind(missing);
    missing.generate = (input) => ((missingCalls += 1), generate(input));
    const byModel: Record<string, LlmEngine> = { Witch: engineOn(`${upstream.url}/v1`, false), Mage: missing };
    const characters = await loadCharacterCatalog();
    stack = await startOpenAiStack("completions-upstream", served, {
      worker: { modelFor: (model) => ({ engine: byModel[model] ?? served, character: characters[model] }) },
    });
  }, 120_000);
  afterAll(async () => {
    await stack.close();
    await Promise.all(engines.map((engine) => engine.close()));
    await upstream.stop();
  }, 60_000);

  const nativeRecord = (completionId: string) => stack.nativeRecord(REQUEST_ID.exec(completionId)?.[1] ?? "none");

  it("when a prompt is completed greedily, then the text is the upstream's own completion of it, and the record holds it", async () => {
    const completion = await stack.client.completions.create({
      model: "default",
      prompt: PROMPT,
      max_tokens: 24,
      temperature: 0,
    });
    const direct = await upstreamCompletion(upstream, 24);
    const text = completion.choices[0]?.text ?? "";
    expect(text.length).toBeGreaterThan(0);
    expect(text).toBe(direct.choices[0]?.text.trimEnd());
    const record = await nativeRecord(completion.id);
    expect(record).toMatchObject({ status: "completed", reply: text, promptTokens: direct.usage?.prompt_tokens });
    expect(completion.usage?.completion_tokens).toBe(direct.usage?.completion_tokens);
  }, 60_000);

  it("when the same completion is streamed, then the pieces add up to the whole one's text", async () => {
    const ask = { model: "default", prompt: PROMPT, max_tokens: 24, temperature: 0 };
    const whole = await stack.client.completions.create(ask);
    const stream = await stack.client.completions.create({ ...ask, stream: true });
    let text = "";
    let pieces = 0;
    let finish: string | null = null;
    for await (const chunk of stream) {
      const piece = chunk.choices[0]?.text ?? "";
      text += piece;
      if (piece) pieces += 1;
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(text).toBe(whole.choices[0]?.text);
    // The upstream's tokens are passed on as they come, not the reply whole at its end.
    expect(pieces).toBeGreaterThan(1);
    expect(finish).toBe(whole.choices[0]?.finish_reason);
  }, 60_000);

  it("when the model's upstream is declared without completions, then admission refuses with 400 naming prompt", async () => {
    await expect(
      stack.client.completions.create({ model: "Witch", prompt: PROMPT, max_tokens: 8 }),
    ).rejects.toMatchObject({ status: 400, param: "prompt" });
  });

  it("when the upstream answers 404 at /v1/completions, then the request is refused saying the upstream has none, tried once", async () => {
    const error = await stack.client.completions
      .create({ model: "Mage", prompt: PROMPT, max_tokens: 8 })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 400, message: expect.stringMatching(/has no \/v1\/completions/) });
    expect(missingCalls).toBe(1); // not retried: it would fail the same way
  }, 60_000);
});
