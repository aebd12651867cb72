import { describe, expect, it } from "@jest/globals";
import { ApiError } from "../errors.js";
import { mapChatCompletionRequest } from "./map-chat-request.js";

const body = (extra: object = {}) => ({ model: "default", messages: [{ role: "user", content: "Hi" }], ...extra });
const jsonSchema = (schema: object) => ({ type: "json_schema", json_schema: { name: "answer", schema } });

function refusedParameter(input: unknown): unknown {
  try {
    mapChatCompletionRequest(input);
  } catch (error) {
    if (error instanceof ApiError && error.code === "INVALID_PARAMETER") return error.details?.parameter;
    throw error;
  }
  throw new Error("accepted");
}

describe("mapChatCompletionRequest: response_format", () => {
  it("when it is text or null, then the job has no response format", () => {
    expect(
      mapChatCompletionRequest(body({ response_format: { type: "text" } })).request.responseFormat,
    ).toBeUndefined();
    expect(mapChatCompletionRequest(body({ response_format: null })).request.responseFormat).toBeUndefined();
  });

  it("when it is json_object, then the job asks for a JSON object", () => {
    const mapped = mapChatCompletionRequest(body({ response_format: { type: "json_object" } }));
    expect(mapped.request.responseFormat).toEqual({ type: "json_object" });
  });

  it("when it is json_schema, then the job carries the schema, its name and strict", () => {
    const schema = {
      type: "object",
      properties: { name: { type: "string", maxLength: 20 }, age: { type: "integer", minimum: 0 } },
      required: ["name", "age"],
      additionalProperties: false,
    };
    const format = { type: "json_schema", json_schema: { name: "person", schema, strict: true } };
    expect(mapChatCompletionRequest(body({ response_format: format })).request.responseFormat).toEqual({
      type: "json_schema",
      name: "person",
      schema,
      strict: true,
    });
  });

  it.each([
    [{ type: "object", not: { required: ["a"] } }, ".not"],
    [{ type: "object", properties: { tags: { type: "array", uniqueItems: true } } }, ".properties.tags.uniqueItems"],
    [{ type: "object", properties: { n: { type: "number", minimum: 0 } } }, ".properties.n.minimum"],
    [{ type: "string", pattern: "[a-z]+" }, ".pattern"],
    [{ type: "string", format: "email" }, ".format"],
    [{ $ref: "https://example.com/s.json" }, ".$ref"],
    [{ type: "object", patternProperties: { "^a": {} } }, ".patternProperties"],
    [{ anyOf: [{ type: "string" }, { if: { type: "string" } }] }, ".anyOf[1].if"],
  ])("when the schema %j has a part llama.cpp cannot honour, then 400 names it", (schema, part) => {
    expect(refusedParameter(body({ response_format: jsonSchema(schema) }))).toBe(
      `response_format.json_schema.schema${part}`,
    );
  });

  it.each([{ type: "json" }, { type: "json_schema" }, { type: "json_schema", json_schema: { name: "a b" } }])(
    "when response_format is %j, then 400 names it",
    (format) => {
      expect(String(refusedParameter(body({ response_format: format })))).toMatch(/^response_format/);
    },
  );
});
