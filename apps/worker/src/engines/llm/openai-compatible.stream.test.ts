import { describe, expect, it } from "@jest/globals";
import { ChatCompletionAccumulator } from "./openai-compatible.stream.js";

function chunk(delta: object, extra: object = {}): object {
  return { object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: null }], ...extra };
}

describe("ChatCompletionAccumulator", () => {
  it("when content deltas arrive, then it joins them and counts only non-empty ones", () => {
    const reply = new ChatCompletionAccumulator();
    const counted = [
      chunk({ role: "assistant", content: "" }),
      chunk({ content: "Hi" }),
      chunk({ content: " there" }),
    ].map((c) => reply.apply(c));
    expect(counted).toEqual([false, true, true]);
    expect(reply).toMatchObject({ text: "Hi there", deltas: 2 });
  });

  it("when a reasoning delta arrives, then it counts as a token but stays out of the text", () => {
    const reply = new ChatCompletionAccumulator();
    expect(reply.apply(chunk({ reasoning_content: "hmm" }))).toBe(true);
    expect(reply).toMatchObject({ text: "", deltas: 1 });
  });

  it("when the finish and usage chunks arrive, then it records them", () => {
    const reply = new ChatCompletionAccumulator();
    reply.apply({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
    reply.apply({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 5 } });
    expect(reply).toMatchObject({ finishReason: "stop", promptTokens: 12, completionTokens: 5 });
  });

  it("when usage names cached prompt tokens (OpenAI), then they are recorded", () => {
    const reply = new ChatCompletionAccumulator();
    reply.apply({ choices: [], usage: { prompt_tokens: 40, prompt_tokens_details: { cached_tokens: 32 } } });
    expect(reply.cachedTokens).toBe(32);
  });

  it("when llama-server's timings name the cached tokens, then they are recorded", () => {
    const reply = new ChatCompletionAccumulator();
    reply.apply({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }], timings: { cache_n: 629, prompt_n: 12 } });
    expect(reply.cachedTokens).toBe(629);
  });

  it("when no cached count is reported, then it stays unknown", () => {
    const reply = new ChatCompletionAccumulator();
    reply.apply({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 5 } });
    expect(reply.cachedTokens).toBeUndefined();
  });

  it("when the chunks are a text completion's (a raw prompt's), then their text is the reply", () => {
    const reply = new ChatCompletionAccumulator();
    expect(reply.apply({ object: "text_completion", choices: [{ index: 0, text: " She", finish_reason: null }] })).toBe(
      true,
    );
    reply.apply({ choices: [{ index: 0, text: " ran.", finish_reason: "length" }], usage: { completion_tokens: 2 } });
    expect(reply).toMatchObject({ text: " She ran.", deltas: 2, finishReason: "length", completionTokens: 2 });
  });
});
