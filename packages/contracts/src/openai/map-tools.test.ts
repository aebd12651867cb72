import { describe, expect, it } from "@jest/globals";
import { ApiError } from "../errors.js";
import { toolCallSchema } from "../text/tools.js";
import { mapChatCompletionRequest } from "./map-chat-request.js";

const PARAMS = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
const weather = { type: "function", function: { name: "get_weather", description: "Weather", parameters: PARAMS } };
const noArgs = { type: "function", function: { name: "now" } };
const body = (extra: object) => ({ model: "default", messages: [{ role: "user", content: "Hi" }], ...extra });

function parameterRefused(input: unknown): unknown {
  try {
    mapChatCompletionRequest(input);
  } catch (error) {
    if (error instanceof ApiError) return error.details?.parameter;
    throw error;
  }
  throw new Error("the body was accepted");
}

describe("mapChatCompletionRequest: tools and tool_choice", () => {
  it("when tools come without tool_choice, then the job has them with choice auto", () => {
    const { request } = mapChatCompletionRequest(body({ tools: [weather, noArgs] }));
    expect(request.tools).toEqual({
      functions: [{ name: "get_weather", description: "Weather", parameters: PARAMS }, { name: "now" }],
      choice: "auto",
    });
  });

  it.each([
    ["required", "required"],
    [{ type: "function", function: { name: "now" } }, { name: "now" }],
  ])("when tool_choice is %p, then the job's choice is %p", (choice, mapped) => {
    expect(
      mapChatCompletionRequest(body({ tools: [weather, noArgs], tool_choice: choice })).request.tools?.choice,
    ).toEqual(mapped);
  });

  it("when tool_choice is none, then the job has no tools: a plain reply", () => {
    expect(mapChatCompletionRequest(body({ tools: [weather], tool_choice: "none" })).request.tools).toBeUndefined();
  });

  it.each([
    [
      "a choice naming no tool",
      { tools: [weather], tool_choice: { type: "function", function: { name: "x" } } },
      "tool_choice.function.name",
    ],
    ["required without tools", { tool_choice: "required" }, "tool_choice"],
    ["two tools of one name", { tools: [weather, weather] }, "tools[1].function.name"],
    ["a custom tool", { tools: [{ type: "custom", custom: { name: "x" } }] }, "tools[0].type"],
    ["an allowed_tools choice", { tools: [weather], tool_choice: { type: "allowed_tools" } }, "tool_choice"],
    ["a name with a space", { tools: [{ type: "function", function: { name: "a b" } }] }, "tools[0].function.name"],
    [
      "parameters with a keyword llama.cpp skips",
      { tools: [{ type: "function", function: { name: "f", parameters: { type: "object", not: {} } } }] },
      "tools[0].function.parameters.not",
    ],
    ["response_format beside tools", { tools: [weather], response_format: { type: "json_object" } }, "response_format"],
    ["the deprecated functions", { functions: [{ name: "f" }] }, "functions"],
  ])("when the body has %s, then 400 names %p", (_label, extra, parameter) => {
    expect(parameterRefused(body(extra))).toBe(parameter);
  });
});

describe("toolCallSchema", () => {
  it("when one function is allowed, then the form is its name and its arguments", () => {
    expect(
      toolCallSchema({
        functions: [{ name: "now" }, { name: "get_weather", parameters: PARAMS }],
        choice: { name: "get_weather" },
      }),
    ).toEqual({
      type: "object",
      properties: { name: { const: "get_weather" }, arguments: PARAMS },
      required: ["name", "arguments"],
      additionalProperties: false,
    });
  });

  it("when any may be called, then the form is one of theirs; a function without parameters takes an empty object", () => {
    const schema = toolCallSchema({
      functions: [{ name: "now" }, { name: "get_weather", parameters: PARAMS }],
      choice: "required",
    });
    expect(schema.anyOf).toHaveLength(2);
    expect(schema).toMatchObject({
      anyOf: [{ properties: { arguments: { type: "object", properties: {}, additionalProperties: false } } }, {}],
    });
  });
});
