import { describe, expect, it } from "@jest/globals";
import { ApiError } from "../errors.js";
import { sentSamplingParams, validateGenerationRequest } from "./validate-generation-request.js";

const body = (extra: object = {}) => ({ messages: [{ role: "You", content: "Hi", index: 0 }], ...extra });

function refusedParameter(input: unknown): unknown {
  try {
    validateGenerationRequest("default", input);
  } catch (error) {
    if (error instanceof ApiError && error.code === "INVALID_PARAMETER") return error.details?.parameter;
    throw error;
  }
  throw new Error("accepted");
}

describe("the native body's extensions: extra sampling fields and responseFormat", () => {
  it("when samplingParams sets the extra fields, then they are kept and counted as sent by the client", () => {
    const knobs = { top_k: 40, min_p: 0.05, repetition_penalty: 1.1, typical_p: 0.9, logit_bias: { "5": 2 } };
    const sent = body({ samplingParams: knobs });
    expect(validateGenerationRequest("default", sent).samplingParams).toMatchObject(knobs);
    expect(sentSamplingParams(sent)).toEqual(knobs);
  });

  it("when an extra field is out of bounds, then 400 names it under samplingParams", () => {
    expect(String(refusedParameter(body({ samplingParams: { presence_penalty: 3 } })))).toContain(
      "samplingParams.presence_penalty",
    );
  });

  it("when temperature is 0, then it is refused: the contract's lowest stays 0.1 (greedy is /v1's)", () => {
    expect(String(refusedParameter(body({ samplingParams: { temperature: 0 } })))).toContain("temperature");
  });

  it("when responseFormat is json_schema with a supported schema, then it is kept", () => {
    const responseFormat = { type: "json_schema", schema: { type: "object", properties: { a: { type: "string" } } } };
    expect(validateGenerationRequest("default", body({ responseFormat })).responseFormat).toEqual(responseFormat);
  });

  it("when the schema holds an unsupported keyword, then 400 names it under responseFormat.schema", () => {
    const responseFormat = { type: "json_schema", schema: { type: "object", minProperties: 1 } };
    expect(refusedParameter(body({ responseFormat }))).toBe("responseFormat.schema.minProperties");
  });

  it("when responseFormat has another type, then it is refused", () => {
    expect(String(refusedParameter(body({ responseFormat: { type: "xml" } })))).toContain("responseFormat");
  });
});
