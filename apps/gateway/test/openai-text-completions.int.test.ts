import { afterAll, beforeAll, expect, it } from "@jest/globals";
import type { StatusRecord } from "@chorus/contracts";
import OpenAI from "openai";
import request from "supertest";
import { describeWithModel } from "../../../test-support/fixtures.js";
import type { TestGateway } from "../../../test-support/gateway.js";
import { startOpenAiStack, type OpenAiStack } from "../../../test-support/openai-stack.js";
import { LLAMA_SERVER_BINARY, loadFixtureEngine } from "../../../test-support/worker.js";

const PROMPT = "Once upon a time, there was a little girl named Lily. She";
const REQUEST_ID = /^cmpl-([0-9a-f-]{36})$/;

/**
 * POST /v1/completions (OpenAI's legacy text completion) driven by the official openai client's
 * completions.create, on the real worker with the fixture model: a raw prompt continued without the
 * chat template, the same job and records as a chat.
 */
describeWithModel("text completions on /v1/completions (llama-server, the official openai client)", () => {
  let stack: OpenAiStack;
  let gw: TestGateway;
  let client: OpenAI;
  let key: string;

  beforeAll(async () => {
    if (!LLAMA_SERVER_BINARY) throw new Error("these tests need llama-server: run `npm run llama:build`");
    stack = await startOpenAiStack("openai-text-completions", await loadFixtureEngine(2, 1024, "server"));
    ({ gw, client, key } = stack);
  }, 120_000);
  afterAll(() => stack.close(), 60_000);

  async function nativeRecord(completionId: string): Promise<StatusRecord> {
    const id = REQUEST_ID.exec(completionId)?.[1];
    expect(id).toBeDefined();
    const res = await request(gw.app)
      .get(`/api/v2/status/${String(id)}`)
      .auth(key, { type: "bearer" });
    expect(res.status).toBe(200);
    return res.body as StatusRecord;
  }

  it("when a prompt is completed, then the answer is a text_completion whose text and usage the native record holds", async () => {
    const completion = await client.completions.create({ model: "default", prompt: PROMPT, max_tokens: 30, seed: 1 });
    expect(completion).toMatchObject({
      id: expect.stringMatching(REQUEST_ID),
      object: "text_completion",
      model: "default",
      choices: [{ index: 0, text: expect.any(String), logprobs: null }],
    });
    const choice = completion.choices[0]!;
    expect(choice.text.trim().length).toBeGreaterThan(0);
    // The continuation of a prompt ending in a word starts with its space: prompt + text reads right.
    expect(choice.text).toMatch(/^ \S/);
    expect(["stop", "length"]).toContain(choice.finish_reason);
    const record = await nativeRecord(completion.id);
    expect(record).toMatchObject({ status: "completed", reply: choice.text, maxTokens: 30 });
    expect(record.finishReason).toBe(choice.finish_reason);
    expect(completion.usage).toEqual({
      prompt_tokens: record.promptTokens,
      completion_tokens: record.tokens,
      total_tokens: (record.promptTokens ?? 0) + (record.tokens ?? 0),
      prompt_tokens_details: { cached_tokens: record.cachedTokens },
    });
    // The raw prompt's tokens alone: a chat template (system turn, role markers) would add many.
    expect(record.promptTokens).toBeLessThan(PROMPT.length / 2);
  }, 60_000);

  it("when max_tokens is absent, then the reply stops at OpenAI's default of 16 tokens", async () => {
    const completion = await client.completions.create({ model: "default", prompt: PROMPT, seed: 2 });
    expect(await nativeRecord(completion.id)).toMatchObject({ maxTokens: 16 });
    expect(completion.usage?.completion_tokens).toBeLessThanOrEqual(16);
  }, 60_000);

  it("when the same seeded prompt is asked whole and streamed, then the streamed pieces add up to the same text", async () => {
    const ask = { model: "default", prompt: [PROMPT], max_tokens: 60, seed: 3, temperature: 0.8 };
    const whole = await client.completions.create(ask);
    const stream = await client.completions.create({ ...ask, stream: true, stream_options: { include_usage: true } });
    let text = "";
    let finish: string | null = null;
    const objects = new Set<string>();
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      objects.add(chunk.object);
      text += chunk.choices[0]?.text ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect([...objects]).toEqual(["text_completion"]);
    expect(text).toBe(whole.choices[0]?.text);
    expect(finish).toBe(whole.choices[0]?.finish_reason);
    expect(usage?.completion_tokens).toBe(whole.usage?.completion_tokens);
  }, 60_000);

  it("when a stream ends, then [DONE] is its last event", async () => {
    const res = await request(gw.app)
      .post("/v1/completions")
      .auth(key, { type: "bearer" })
      .send({ model: "default", prompt: PROMPT, max_tokens: 10, stream: true });
    expect(res.status).toBe(200);
    const events = res.text.split("\n\n").filter((event) => event.startsWith("data: "));
    expect(events.at(-1)).toBe("data: [DONE]");
    const last = JSON.parse(events.at(-2)!.slice(6)) as OpenAI.Completion;
    expect(last.choices[0]?.finish_reason).toMatch(/^(stop|length)$/);
  }, 60_000);

  it("when a stop sequence is sent, then the text ends before it", async () => {
    const ask = { model: "default", prompt: PROMPT, max_tokens: 60, seed: 4, temperature: 0 };
    const whole = (await client.completions.create(ask)).choices[0]?.text ?? "";
    const word = /\s(\w{3,})/.exec(whole.slice(5))?.[1];
    expect(word).toBeDefined();
    const stopped = await client.completions.create({ ...ask, stop: [String(word)] });
    expect(stopped.choices[0]?.finish_reason).toBe("stop");
    expect(whole.startsWith(stopped.choices[0]?.text ?? "\u0000")).toBe(true);
    expect(stopped.choices[0]?.text).not.toContain(String(word));
  }, 60_000);

  it.each([
    ["suffix", { suffix: " The end." }],
    ["logprobs", { logprobs: 2 }],
    ["echo", { echo: true }],
    ["n", { n: 2 }],
    ["best_of", { best_of: 3 }],
    ["prompt", { prompt: [1, 2, 3] }],
    ["prompt", { prompt: ["one", "two"] }],
    ["max_tokens", { max_tokens: 1_000_000 }],
  ])("when the body has an unsupported %s, then BadRequestError names it", async (param, extra) => {
    const refused = client.completions.create({
      model: "default",
      prompt: PROMPT,
      ...extra,
    } as OpenAI.CompletionCreateParamsNonStreaming);
    await expect(refused).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(refused).rejects.toMatchObject({ status: 400, param });
  });
});
