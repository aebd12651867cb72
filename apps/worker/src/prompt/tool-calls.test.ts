import { describe, expect, it } from "@jest/globals";
import type { ToolsRequest } from "@chorus/contracts";
import { forcedCallFormat, toolCallIn, toolsInstructions } from "./tool-calls.js";

const TOOLS: ToolsRequest = {
  functions: [{ name: "get_weather", description: "The weather", parameters: { type: "object" } }, { name: "now" }],
  choice: "auto",
};

describe("toolCallIn", () => {
  it.each([
    ['{"name": "get_weather", "arguments": {"city": "Paris"}}', "get_weather", '{"city":"Paris"}'],
    ['```json\n{"name": "now", "arguments": {}}\n```', "now", "{}"],
    ['<tool_call>{"name": "now"}</tool_call>', "now", "{}"],
  ])("when the reply is a call (%p), then it is read with an id", (reply, name, args) => {
    expect(toolCallIn(reply, TOOLS)).toEqual({
      id: expect.stringMatching(/^call_[0-9a-f]{24}$/),
      name,
      arguments: args,
    });
  });

  it.each([
    ["text", "It is sunny in Paris."],
    ["an unknown function", '{"name": "fly", "arguments": {}}'],
    ["arguments that are not an object", '{"name": "now", "arguments": [1]}'],
    ["a call cut short", '{"name": "get_weather", "arguments": {"ci'],
  ])("when the reply is %s, then it is no call", (_label, reply) => {
    expect(toolCallIn(reply, TOOLS)).toBeNull();
  });

  it("when the choice names a function, then a call to another is no call", () => {
    expect(toolCallIn('{"name": "now", "arguments": {}}', { ...TOOLS, choice: { name: "get_weather" } })).toBeNull();
  });
});

describe("forcedCallFormat and toolsInstructions", () => {
  it("when the choice is auto, then nothing is forced; required and a name are json_schema", () => {
    expect(forcedCallFormat(TOOLS)).toBeUndefined();
    expect(forcedCallFormat({ ...TOOLS, choice: "required" })).toMatchObject({
      type: "json_schema",
      name: "tool_call",
    });
    expect(forcedCallFormat({ ...TOOLS, choice: { name: "now" } })).toMatchObject({
      schema: { properties: { name: { const: "now" } } },
    });
  });

  it("when the functions are stated, then each name, description and schema is in the text", () => {
    const text = toolsInstructions(TOOLS);
    expect(text).toContain('- get_weather: The weather\n  arguments (JSON Schema): {"type":"object"}');
    expect(text).toContain("- now\n");
  });
});
