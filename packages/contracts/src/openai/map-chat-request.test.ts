import { describe, expect, it } from "@jest/globals";
import { ApiError } from "../errors.js";
import { mapChatCompletionRequest } from "./map-chat-request.js";
import { NEUTRAL_ONLY_FIELDS } from "./neutral-fields.js";

const user = (content: unknown) => ({ role: "user", content });
const body = (extra: object = {}) => ({ model: "default", messages: [user("Hello?")], ...extra });

/** The 400 a body gets: the field it names and its message. */
function refusal(input: unknown): { parameter: unknown; message: string } {
  try {
    mapChatCompletionRequest(input);
  } catch (error) {
    if (error instanceof ApiError && error.code === "INVALID_PARAMETER")
      return { parameter: error.details?.parameter, message: error.message };
    throw error;
  }
  throw new Error("the body was accepted");
}

describe("mapChatCompletionRequest: messages", () => {
  it("when user and assistant messages come, then they become You and Bot turns in order, positions counted", () => {
    const mapped = mapChatCompletionRequest(
      body({ messages: [user("Hi"), { role: "assistant", content: "Hello." }, user("Tea?")] }),
    );
    expect(mapped.request.messages).toEqual([
      { role: "You", content: "Hi", index: 0 },
      { role: "Bot", content: "Hello.", index: 1 },
      { role: "You", content: "Tea?", index: 2 },
    ]);
    expect(mapped.request.botName).toBeUndefined();
    expect(mapped.request.persona).toBeUndefined();
  });

  it("when system and developer messages come, then they become instructions (joined), never persona nor turns", () => {
    const mapped = mapChatCompletionRequest(
      body({
        messages: [{ role: "system", content: " Be brief. " }, user("Hi"), { role: "developer", content: "Rhyme." }],
      }),
    );
    expect(mapped.request.instructions).toBe("Be brief.\n\nRhyme.");
    expect(mapped.request.persona).toBeUndefined();
    expect(mapped.request.messages).toEqual([{ role: "You", content: "Hi", index: 0 }]);
  });

  it("when content is an array of text parts, then their texts are joined by line breaks", () => {
    const mapped = mapChatCompletionRequest(
      body({
        messages: [
          user([
            { type: "text", text: "One" },
            { type: "text", text: "Two" },
          ]),
        ],
      }),
    );
    expect(mapped.request.messages[0]?.content).toBe("One\nTwo");
  });

  it.each([
    [
      "an image part",
      [user([{ type: "image_url", image_url: { url: "https://example.com/a.png" } }])],
      "messages[0].content[0].type",
    ],
    ["a blank message", [user("  ")], "messages[0].content"],
    ["only system messages", [{ role: "system", content: "Be brief." }], "messages"],
  ])("when messages hold %s, then 400 names %s", (_label, messages, parameter) => {
    expect(refusal(body({ messages })).parameter).toBe(parameter);
  });

  it("when a system message is 20,000 characters long, then it is taken whole (the model's context bounds it)", () => {
    const long = "Be kind. ".repeat(2223).slice(0, 20_000);
    const mapped = mapChatCompletionRequest(body({ messages: [{ role: "system", content: long }, user("Hi")] }));
    expect(mapped.request.instructions).toBe(long.trim());
  });
});

describe("mapChatCompletionRequest: sampling and answer", () => {
  it("when nothing is set, then the contract's defaults fill the request and the client set nothing", () => {
    const mapped = mapChatCompletionRequest(body());
    expect(mapped.request.samplingParams).toEqual({ max_tokens: 150, temperature: 0.7, top_p: 0.9 });
    // No max_tokens: the reply runs to the end of the context, at most the deployment's ceiling.
    expect(mapped.request.contextFit).toEqual({ ceiling: 4096 });
    expect(mapped.clientSampling).toEqual({});
    expect(mapped).toMatchObject({ stream: false, includeUsage: false });
  });

  it("when max_tokens, temperature, top_p and seed are set, then they are the job's and marked as the client's", () => {
    const mapped = mapChatCompletionRequest(body({ max_tokens: 64, temperature: 1.2, top_p: 0.5, seed: 7 }));
    const expected = { max_tokens: 64, temperature: 1.2, top_p: 0.5, seed: 7 };
    expect(mapped.request.samplingParams).toEqual(expected);
    expect(mapped.clientSampling).toEqual(expected);
  });

  it("when max_completion_tokens is set, then it is max_tokens; both set and different is 400", () => {
    expect(mapChatCompletionRequest(body({ max_completion_tokens: 33 })).clientSampling.max_tokens).toBe(33);
    expect(
      mapChatCompletionRequest(body({ max_completion_tokens: 33, max_tokens: 33 })).clientSampling.max_tokens,
    ).toBe(33);
    expect(refusal(body({ max_completion_tokens: 33, max_tokens: 34 })).parameter).toBe("max_completion_tokens");
  });

  it("when max_tokens is above 2048, then it is taken up to the deployment's MAX_COMPLETION_TOKENS and named beyond", () => {
    expect(mapChatCompletionRequest(body({ max_tokens: 4096 })).clientSampling.max_tokens).toBe(4096);
    const limits = { maxCompletionTokens: 300 };
    expect(mapChatCompletionRequest(body({ max_tokens: 300 }), limits).request.contextFit).toEqual({ ceiling: 300 });
    expect(() => mapChatCompletionRequest(body({ max_completion_tokens: 301 }), limits)).toThrow(
      "max_completion_tokens must be at most 300 (this deployment's MAX_COMPLETION_TOKENS)",
    );
  });

  it("when temperature is 0 (OpenAI's greedy), then the job is greedy (temperature 0)", () => {
    expect(mapChatCompletionRequest(body({ temperature: 0 })).clientSampling.temperature).toBe(0);
  });

  it("when temperature is between 0 and the service's lowest, then the job samples at that lowest", () => {
    expect(mapChatCompletionRequest(body({ temperature: 0.05 })).clientSampling.temperature).toBe(0.1);
  });

  it("when fields are null, then they count as not set", () => {
    const mapped = mapChatCompletionRequest(
      body({
        max_tokens: null,
        temperature: null,
        seed: null,
        stream: null,
        n: null,
        stop: null,
        tools: null,
        user: null,
      }),
    );
    expect(mapped.clientSampling).toEqual({});
  });

  it("when stream and stream_options.include_usage are set, then both are kept; stream_options without stream is 400", () => {
    expect(mapChatCompletionRequest(body({ stream: true, stream_options: { include_usage: true } }))).toMatchObject({
      stream: true,
      includeUsage: true,
    });
    expect(refusal(body({ stream_options: { include_usage: true } })).parameter).toBe("stream_options");
  });

  it.each([
    ["max_tokens", 0],
    ["max_tokens", 4097],
    ["max_completion_tokens", 4097],
    ["temperature", 2.01],
    ["top_p", 0],
    ["seed", -1],
    ["seed", 2 ** 32],
    ["stream", "yes"],
  ])("when %s is %p, then 400 names it", (field, value) => {
    expect(refusal(body({ [field]: value })).parameter).toBe(field);
  });

  it("when ignored fields are set, then the request is mapped as without them", () => {
    const mapped = mapChatCompletionRequest(
      body({ user: "u-1", metadata: { a: "b" }, store: false, service_tier: "auto", parallel_tool_calls: true }),
    );
    expect(mapped).toEqual(mapChatCompletionRequest(body()));
  });

  it("when stop is a string or a list, then the job stops before each sequence (one string is a list of one)", () => {
    expect(mapChatCompletionRequest(body({ stop: "END" })).request.stop).toEqual(["END"]);
    expect(mapChatCompletionRequest(body({ stop: ["\n\n", "THE END"] })).request.stop).toEqual(["\n\n", "THE END"]);
    expect(mapChatCompletionRequest(body({ stop: [] })).request).not.toHaveProperty("stop");
  });

  it.each([
    ["five sequences", ["a", "b", "c", "d", "e"]],
    ["an empty sequence", ["a", ""]],
    ["an empty string", ""],
    ["a sequence of 101 characters", ["x".repeat(101)]],
    ["a number", 7],
    ["a list holding a number", ["a", 7]],
  ])("when stop is %s, then 400 names stop and says the rule", (_case, stop) => {
    expect(refusal(body({ stop }))).toEqual({
      parameter: "stop",
      message: "stop must be a string or a list of at most 4 strings, each of 1-100 characters",
    });
  });

  it("when an unknown field is sent, then 400 names it", () => {
    expect(refusal(body({ banana: 1 })).parameter).toBe("banana");
  });
});

describe("mapChatCompletionRequest: fields accepted only at their neutral value", () => {
  it.each([
    ["n", 1],
    ["stop", []],
    ["stop", null],
    ["presence_penalty", 0],
    ["frequency_penalty", 0],
    ["logit_bias", {}],
    ["logprobs", false],
    ["top_logprobs", 0],
    ["tools", []],
    ["tool_choice", "none"],
    ["response_format", { type: "text" }],
    ["modalities", ["text"]],
  ])("when %s is %p, then it is accepted", (field, value) => {
    expect(mapChatCompletionRequest(body({ [field]: value }))).toEqual(mapChatCompletionRequest(body()));
  });

  it.each([
    ["n", 2],
    ["logprobs", true],
    ["top_logprobs", 3],
    ["modalities", ["text", "audio"]],
    ["audio", { voice: "alloy", format: "mp3" }],
    ["reasoning_effort", "low"],
  ])("when %s is %p, then 400 names it and says why", (field, value) => {
    const { parameter, message } = refusal(body({ [field]: value }));
    expect(parameter).toBe(field);
    expect(message).toBe(NEUTRAL_ONLY_FIELDS[field]?.why);
  });
});
