import { describe, expect, it } from "@jest/globals";
import { ApiError } from "../errors.js";
import { mapChatCompletionRequest } from "./map-chat-request.js";

const user = (content: unknown) => ({ role: "user", content });
const map = (messages: unknown[]) => mapChatCompletionRequest({ model: "default", messages }).request;

/** The field a 400 names. */
function refusedAt(messages: unknown[]): unknown {
  try {
    map(messages);
  } catch (error) {
    if (error instanceof ApiError && error.code === "INVALID_PARAMETER") return error.details?.parameter;
    throw error;
  }
  throw new Error("the messages were accepted");
}

const TOOL_CALL = { id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } };

describe("mapChatMessages: what clients send back on their next turn", () => {
  it("when the assistant's message comes back as the SDK returned it (refusal null), then it is its Bot turn", () => {
    const echoed = { role: "assistant", content: "Hello.", refusal: null };
    expect(map([user("Hi"), echoed, user("More?")]).messages).toEqual([
      { role: "You", content: "Hi", index: 0 },
      { role: "Bot", content: "Hello.", index: 1 },
      { role: "You", content: "More?", index: 2 },
    ]);
  });

  it("when it comes back as Python's model_dump() gives it (every field, nulls included), then it is accepted alike", () => {
    const dumped = {
      content: "Hello.",
      refusal: null,
      role: "assistant",
      annotations: null,
      audio: null,
      function_call: null,
      tool_calls: null,
    };
    expect(map([user("Hi"), dumped, user("More?")]).messages[1]).toEqual({ role: "Bot", content: "Hello.", index: 1 });
    expect(map([user("Hi"), { ...dumped, annotations: [] }, user("More?")]).messages[1]?.content).toBe("Hello.");
  });

  it("when an assistant's content is null or empty, then it is an empty Bot turn", () => {
    for (const content of [null, "", []])
      expect(map([user("Hi"), { role: "assistant", content }, user("?")]).messages[1]).toEqual({
        role: "Bot",
        content: "",
        index: 1,
      });
    expect(map([user("Hi"), { role: "assistant" }, user("?")]).messages[1]?.content).toBe("");
  });

  it("when an assistant called tools, then its turn holds the calls as JSON after its text; a tool's result is a You turn naming the call", () => {
    const mapped = map([
      user("Weather in Oslo?"),
      { role: "assistant", content: null, tool_calls: [TOOL_CALL] },
      { role: "tool", tool_call_id: "call_1", content: [{ type: "text", text: "12 C" }] },
      { role: "assistant", content: "It is 12 C.", tool_calls: [] },
    ]);
    expect(mapped.messages).toEqual([
      { role: "You", content: "Weather in Oslo?", index: 0 },
      { role: "Bot", content: JSON.stringify({ tool_calls: [TOOL_CALL] }), index: 1 },
      { role: "You", content: "Result of the tool call call_1 (weather):\n12 C", index: 2 },
      { role: "Bot", content: "It is 12 C.", index: 3 },
    ]);
  });

  it("when a deprecated function call and result come, then they are taken as tool calls are", () => {
    const call = { name: "weather", arguments: "{}" };
    const mapped = map([
      user("?"),
      { role: "assistant", content: "Let me look.", function_call: call },
      { role: "function", name: "weather", content: "12 C" },
    ]);
    expect(mapped.messages.slice(1).map((m) => m.content)).toEqual([
      `Let me look.\n${JSON.stringify({ function_call: call })}`,
      "Result of the function weather:\n12 C",
    ]);
  });

  it("when an assistant refused, then its refusal is its text (field or part)", () => {
    expect(map([user("?"), { role: "assistant", content: null, refusal: "No." }]).messages[1]?.content).toBe("No.");
    const parts = [
      { type: "text", text: "Well." },
      { type: "refusal", refusal: "No." },
    ];
    expect(map([user("?"), { role: "assistant", content: parts }]).messages[1]?.content).toBe("Well.\nNo.");
  });

  it("when system and developer messages stand anywhere, then they join the system turn in their order; blank ones add nothing", () => {
    const mapped = map([
      { role: "system", content: "Be brief.", name: "setup" },
      user("Hi"),
      { role: "developer", content: [{ type: "text", text: "Rhyme." }] },
      { role: "system", content: " " },
      { role: "user", content: "Again", name: "ann" },
    ]);
    expect(mapped.instructions).toBe("Be brief.\n\nRhyme.");
    expect(mapped.messages.map((m) => m.content)).toEqual(["Hi", "Again"]);
  });

  it.each([
    ["a refusal on a user message", [{ role: "user", content: "x", refusal: null }], "messages[0].refusal"],
    ["tool_calls on a system message", [{ role: "system", content: "x", tool_calls: [] }], "messages[0].tool_calls"],
    ["a tool message without tool_call_id", [user("?"), { role: "tool", content: "1" }], "messages[1].tool_call_id"],
    ["a user message without content", [{ role: "user" }], "messages[0].content"],
    ["assistant audio", [user("?"), { role: "assistant", content: "a", audio: { id: "au_1" } }], "messages[1].audio"],
    ["a refusal part on a user message", [user([{ type: "refusal", refusal: "no" }])], "messages[0].content[0].type"],
    ["a text part without text", [user([{ type: "text" }])], "messages[0].content[0].text"],
    ["an input_audio part", [user([{ type: "input_audio", input_audio: {} }])], "messages[0].content[0].type"],
    ["an unknown role", [{ role: "robot", content: "x" }], "messages[0].role"],
  ])("when messages hold %s, then 400 names %s", (_label, messages, parameter) => {
    expect(refusedAt(messages)).toBe(parameter);
  });
});
