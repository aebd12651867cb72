import { describe, expect, it } from "@jest/globals";
import { ApiError } from "../errors.js";
import { refuseUnsupported, type EngineFeatures } from "../text/engine-features.js";
import { mapChatCompletionRequest } from "./map-chat-request.js";

const body = (extra: object = {}) => ({ model: "default", messages: [{ role: "user", content: "Hi" }], ...extra });

function refusal(run: () => unknown): { parameter: unknown; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError && error.code === "INVALID_PARAMETER")
      return { parameter: error.details?.parameter, message: error.message };
    throw error;
  }
  throw new Error("accepted");
}

describe("mapChatCompletionRequest: the extra sampling fields", () => {
  it("when every knob is sent, then each reaches the job's sampling as sent", () => {
    const knobs = {
      presence_penalty: 0.5,
      frequency_penalty: -1,
      top_k: 40,
      min_p: 0.05,
      repetition_penalty: 1.1,
      typical_p: 0.9,
      logit_bias: { "50256": -100, "13": 5 },
    };
    const mapped = mapChatCompletionRequest(body(knobs));
    expect(mapped.clientSampling).toMatchObject(knobs);
    expect(mapped.request.samplingParams).toMatchObject(knobs);
  });

  it.each([
    ["presence_penalty", 2.5],
    ["frequency_penalty", -2.1],
    ["top_k", 1001],
    ["top_k", 1.5],
    ["min_p", 1.1],
    ["repetition_penalty", 0],
    ["typical_p", 0],
    ["logit_bias", { "50256": 101 }],
    ["logit_bias", { abc: 1 }],
    ["logit_bias", { "-1": 1 }],
  ])("when %s is %p (out of bounds), then 400 names it", (field, value) => {
    expect(String(refusal(() => mapChatCompletionRequest(body({ [field]: value }))).parameter)).toContain(field);
  });

  it("when knobs are sent at their neutral values or null, then they ask nothing of the engine", () => {
    const neutral = body({
      presence_penalty: 0,
      frequency_penalty: null,
      top_k: 0,
      min_p: 0,
      repetition_penalty: 1,
      typical_p: 1,
      logit_bias: {},
    });
    expect(mapChatCompletionRequest(neutral)).toEqual(mapChatCompletionRequest(body()));
  });
});

describe("refuseUnsupported", () => {
  const names = { samplingPrefix: "", formatParam: "response_format" };
  const llamaServerLike: EngineFeatures = { sampling: ["top_k", "min_p"], responseFormats: ["json_object"] };

  it("when a knob the engine cannot honour is set, then 400 names that field and says what it supports", () => {
    const { parameter, message } = refusal(() =>
      refuseUnsupported({ sampling: { top_k: 5, typical_p: 0.5 } }, llamaServerLike, names),
    );
    expect(parameter).toBe("typical_p");
    expect(message).toContain("top_k, min_p");
  });

  it("when a response format the engine cannot honour is asked, then 400 names response_format", () => {
    const asked = { sampling: {}, responseFormat: { type: "json_schema" as const, schema: {} } };
    expect(refusal(() => refuseUnsupported(asked, llamaServerLike, names)).parameter).toBe("response_format");
  });

  it("when the native door asks, then the field is named under samplingParams", () => {
    const native = { samplingPrefix: "samplingParams.", formatParam: "responseFormat" };
    const none: EngineFeatures = { sampling: [], responseFormats: [] };
    expect(refusal(() => refuseUnsupported({ sampling: { min_p: 0.1 } }, none, native)).parameter).toBe(
      "samplingParams.min_p",
    );
  });

  it("when only what the engine honours (or neutral values) is asked, then nothing is refused", () => {
    const asked = { sampling: { top_k: 5, typical_p: 1 }, responseFormat: { type: "json_object" as const } };
    expect(() => refuseUnsupported(asked, llamaServerLike, names)).not.toThrow();
  });
});
