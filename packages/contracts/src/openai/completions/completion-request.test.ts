import { describe, expect, it } from "@jest/globals";
import { ApiError } from "../../errors.js";
import { DEFAULT_CHAT_LIMITS } from "../map-chat-request.js";
import { mapTextCompletionRequest } from "./completion-request.js";

const body = (extra: object = {}) => ({ model: "default", prompt: "Once upon a time", ...extra });
const map = (input: unknown) => mapTextCompletionRequest(input, DEFAULT_CHAT_LIMITS);

function refusedParameter(input: unknown): unknown {
  try {
    map(input);
  } catch (error) {
    if (error instanceof ApiError) return error.details?.parameter;
    throw error;
  }
  throw new Error("the body was accepted");
}

describe("mapTextCompletionRequest", () => {
  it("when a prompt comes, then the job is that raw prompt, no messages, OpenAI's 16 tokens by default", () => {
    const mapped = map(body());
    expect(mapped.request).toMatchObject({ messages: [], prompt: "Once upon a time", contextFit: { ceiling: 4096 } });
    expect(mapped.clientSampling).toEqual({ max_tokens: 16 });
    expect(mapped).toMatchObject({ stream: false, includeUsage: false });
  });

  it("when the prompt is a list of one, sampling and stop are set, then they are the job's", () => {
    const mapped = map(
      body({ prompt: ["Hi"], max_tokens: 40, temperature: 0, top_p: 0.9, seed: 7, stop: "\n", presence_penalty: 0.5 }),
    );
    expect(mapped.request).toMatchObject({ prompt: "Hi", stop: ["\n"] });
    expect(mapped.clientSampling).toEqual({
      max_tokens: 40,
      temperature: 0,
      top_p: 0.9,
      seed: 7,
      presence_penalty: 0.5,
    });
  });

  it.each([
    ["neutral values", { n: 1, best_of: 1, echo: false, logprobs: null, suffix: null, user: "u" }],
    ["stream with include_usage", { stream: true, stream_options: { include_usage: true } }],
  ])("when the body has %s, then it is accepted", (_label, extra) => {
    expect(() => map(body(extra))).not.toThrow();
  });

  it.each([
    ["suffix", { suffix: "end" }],
    ["logprobs", { logprobs: 0 }],
    ["echo", { echo: true }],
    ["n", { n: 3 }],
    ["prompt", { prompt: [] }],
    ["prompt", { prompt: [[1, 2]] }],
    ["prompt", { prompt: "   " }],
    ["max_tokens", { max_tokens: 5000 }],
    ["stream_options", { stream_options: { include_usage: true } }],
    ["tools", { tools: [] }],
  ])("when %s is refused, then 400 names it", (parameter, extra) => {
    expect(refusedParameter(body(extra))).toBe(parameter);
  });
});
