import { describe, expect, it } from "@jest/globals";
import { ChatCompletionAccumulator, SseDataParser } from "./openai-compatible.stream.js";
import { OpenAiCompatibleUpstreamError } from "./openai-compatible.upstream-error.js";

const encoder = new TextEncoder();

/** Feeds `bytes` split at the given offsets and collects every payload, as the engine would. */
function parse(bytes: Uint8Array, cuts: number[]): string[] {
  const parser = new SseDataParser();
  const payloads: string[] = [];
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    payloads.push(...parser.push(bytes.subarray(start, cut)));
    start = cut;
  }
  return [...payloads, ...parser.end()];
}

const STREAM = [
  ": keep-alive",
  "",
  'data: {"word":"café 日本"}',
  "",
  "event: message",
  "id: 7",
  "data:no-space",
  "",
  ":comment with data: inside",
  "data: first line",
  "data: second line",
  "",
  "",
  "retry: 100",
  "data: [DONE]",
  "",
].join("\r\n");

const EXPECTED = ['{"word":"café 日本"}', "no-space", "first line\nsecond line", "[DONE]"];

describe("SseDataParser", () => {
  it("when the stream arrives whole, then it yields each event's data", () => {
    expect(parse(encoder.encode(STREAM), [])).toEqual(EXPECTED);
  });

  it("when the stream is split at any byte, even inside a CRLF or a UTF-8 character, then it yields the same data", () => {
    const bytes = encoder.encode(STREAM);
    for (let cut = 0; cut <= bytes.length; cut += 1) expect(parse(bytes, [cut])).toEqual(EXPECTED);
  });

  it("when every byte arrives alone, then it yields the same data", () => {
    const bytes = encoder.encode(STREAM);
    expect(
      parse(
        bytes,
        Array.from({ length: bytes.length }, (_, i) => i),
      ),
    ).toEqual(EXPECTED);
  });

  it.each([
    ["LF", "\n"],
    ["CR", "\r"],
  ])("when lines end with %s, then it yields the same data", (_, eol) => {
    expect(parse(encoder.encode(STREAM.replaceAll("\r\n", eol)), [])).toEqual(EXPECTED);
  });

  it("when the stream ends without the final blank line, then the last event still counts", () => {
    expect(parse(encoder.encode("data: a\n\ndata: [DONE]\n"), [])).toEqual(["a", "[DONE]"]);
  });
});

function chunk(delta: object, extra: object = {}): string {
  return JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: null }], ...extra });
}

describe("ChatCompletionAccumulator", () => {
  it("when content deltas arrive, then it joins them and counts only non-empty ones", () => {
    const reply = new ChatCompletionAccumulator();
    const counted = [chunk({ role: "assistant", content: "" }), chunk({ content: "Hi" }), chunk({ content: " there" })].map((payload) => reply.apply(payload, undefined));
    expect(counted).toEqual([false, true, true]);
    expect(reply).toMatchObject({ text: "Hi there", deltas: 2, done: false });
  });

  it("when a reasoning delta arrives, then it counts as a token but stays out of the text", () => {
    const reply = new ChatCompletionAccumulator();
    expect(reply.apply(chunk({ reasoning_content: "hmm" }), undefined)).toBe(true);
    expect(reply).toMatchObject({ text: "", deltas: 1 });
  });

  it("when the usage chunk and [DONE] arrive, then it records usage and finishes", () => {
    const reply = new ChatCompletionAccumulator();
    reply.apply(JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }), undefined);
    reply.apply(JSON.stringify({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 5 } }), undefined);
    reply.apply("[DONE]", undefined);
    expect(reply).toMatchObject({ finishReason: "stop", promptTokens: 12, completionTokens: 5, done: true });
  });

  it("when usage names cached prompt tokens (OpenAI), then they are recorded", () => {
    const reply = new ChatCompletionAccumulator();
    reply.apply(JSON.stringify({ choices: [], usage: { prompt_tokens: 40, prompt_tokens_details: { cached_tokens: 32 } } }), undefined);
    expect(reply.cachedTokens).toBe(32);
  });

  it("when llama-server's timings name the cached tokens, then they are recorded", () => {
    const reply = new ChatCompletionAccumulator();
    reply.apply(JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }], timings: { cache_n: 629, prompt_n: 12 } }), undefined);
    expect(reply.cachedTokens).toBe(629);
  });

  it("when no cached count is reported, then it stays unknown", () => {
    const reply = new ChatCompletionAccumulator();
    reply.apply(JSON.stringify({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 5 } }), undefined);
    expect(reply.cachedTokens).toBeUndefined();
  });

  it("when the upstream reports an error mid-stream, then it throws its message without the key", () => {
    const reply = new ChatCompletionAccumulator();
    const payload = JSON.stringify({ error: { message: "context overflow for key k-123456" } });
    expect(() => reply.apply(payload, "k-123456")).toThrow(
      new OpenAiCompatibleUpstreamError("Upstream reported an error mid-stream: context overflow for key [redacted]", {
        retryable: false,
      }),
    );
  });

  it("when an event is not JSON, then it throws", () => {
    expect(() => new ChatCompletionAccumulator().apply("{not json", undefined)).toThrow("not JSON");
  });
});
