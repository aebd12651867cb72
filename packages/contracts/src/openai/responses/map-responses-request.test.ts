import { describe, expect, it } from "@jest/globals";
import { ApiError } from "../../errors.js";
import { mapResponseCreateRequest } from "./map-responses-request.js";

const refusal = (body: unknown): ApiError => {
  try {
    mapResponseCreateRequest(body);
  } catch (error) {
    if (error instanceof ApiError) return error;
  }
  throw new Error("the body was accepted");
};

describe("mapResponseCreateRequest", () => {
  it("when input is a string with instructions, then the instructions lead and the string is the user's turn", () => {
    const { chat, background, stream, echo } = mapResponseCreateRequest({
      model: "Witch",
      input: "Hello",
      instructions: "Be brief.",
      max_output_tokens: 30,
      temperature: 0.5,
      metadata: { a: "b" },
    });
    expect(chat.request).toMatchObject({ instructions: "Be brief.", messages: [{ role: "You", content: "Hello" }] });
    expect(chat.clientSampling).toMatchObject({ max_tokens: 30, temperature: 0.5 });
    expect({ background, stream }).toEqual({ background: false, stream: false });
    expect(echo).toMatchObject({ instructions: "Be brief.", max_output_tokens: 30, metadata: { a: "b" } });
  });

  it("when input holds messages with text parts and an earlier output, then they become the conversation in order", () => {
    const { chat } = mapResponseCreateRequest({
      model: "default",
      input: [
        { role: "user", content: [{ type: "input_text", text: "Hi" }] },
        {
          type: "message",
          id: "msg_1",
          status: "completed",
          role: "assistant",
          content: [{ type: "output_text", text: "Hello" }],
        },
        { role: "user", content: "More" },
      ],
      background: true,
      stream: true,
    });
    expect(chat.request.messages.map((m) => [m.role, m.content])).toEqual([
      ["You", "Hi"],
      ["Bot", "Hello"],
      ["You", "More"],
    ]);
    expect(chat.stream).toBe(false);
  });

  it("when the chat mapping refuses a field, then the 400 names it in the Responses API's terms", () => {
    expect(refusal({ model: "default", input: [{ role: "user", content: " " }] }).details?.parameter).toBe(
      "input[0].content",
    );
    expect(
      refusal({ model: "default", instructions: "x", input: [{ role: "user", content: " " }] }).details?.parameter,
    ).toBe("input[0].content");
    expect(refusal({ model: "default", input: "Hi", max_output_tokens: 1_000_000 }).details?.parameter).toBe(
      "max_output_tokens",
    );
  });

  it.each([
    ["previous_response_id", { previous_response_id: "resp_1" }],
    ["reasoning", { reasoning: { effort: "high" } }],
    ["conversation", { conversation: "conv_1" }],
    ["top_logprobs", { top_logprobs: 3 }],
  ])("when %s asks for what is not offered, then it is refused naming it", (field, extra) => {
    expect(refusal({ model: "default", input: "Hi", ...extra }).details?.parameter).toBe(field);
  });

  it("when the body has a field OpenAI does not define, then it is refused naming it", () => {
    expect(refusal({ model: "default", input: "Hi", frobnicate: 1 }).details?.parameter).toBe("frobnicate");
  });
});

describe("mapResponseCreateRequest: tools", () => {
  const fn = { type: "function", name: "now", description: "The time", parameters: { type: "object" }, strict: true };

  it("when function tools are sent in the flat shape, then the job gets them with the choice", () => {
    const { chat, echo } = mapResponseCreateRequest({
      model: "default",
      input: "Hi",
      tools: [fn],
      tool_choice: { type: "function", name: "now" },
    });
    expect(chat.request.tools).toEqual({
      functions: [{ name: "now", description: "The time", parameters: { type: "object" }, strict: true }],
      choice: { name: "now" },
    });
    expect(echo).toMatchObject({ tools: [fn], toolChoice: { type: "function", name: "now" } });
    expect(mapResponseCreateRequest({ model: "default", input: "Hi", tools: [fn] }).echo.toolChoice).toBe("auto");
  });

  it("when tools are empty or tool_choice is none, then the request is a plain one", () => {
    expect(mapResponseCreateRequest({ model: "default", input: "Hi", tools: [] }).chat.request.tools).toBeUndefined();
    const none = mapResponseCreateRequest({ model: "default", input: "Hi", tools: [fn], tool_choice: "none" });
    expect(none.chat.request.tools).toBeUndefined();
  });

  it("when input holds a function call and its output, then they are the assistant's call and the tool's result", () => {
    const { chat } = mapResponseCreateRequest({
      model: "default",
      tools: [fn],
      input: [
        { role: "user", content: "What time is it?" },
        { type: "function_call", id: "fc_1", call_id: "call_1", name: "now", arguments: "{}", status: "completed" },
        { type: "function_call_output", call_id: "call_1", output: "noon" },
      ],
    });
    const [question, call, result] = chat.request.messages;
    expect(question?.content).toBe("What time is it?");
    expect(call).toMatchObject({ role: "Bot" });
    expect(call?.content).toContain('"name":"now"');
    expect(result).toMatchObject({ role: "You", content: "Result of the tool call call_1 (now):\nnoon" });
  });

  it.each([
    ["tools[0].type", { tools: [{ type: "web_search" }] }],
    ["tools[0].parameters.not", { tools: [{ ...fn, parameters: { type: "object", not: {} } }] }],
    ["tools[0].name", { tools: [{ type: "function", name: "no spaces" }] }],
    ["tools[0].frobnicate", { tools: [{ ...fn, frobnicate: 1 }] }],
    ["tool_choice", { tools: [fn], tool_choice: { type: "file_search" } }],
    ["tool_choice.name", { tools: [fn], tool_choice: { type: "function", name: "other" } }],
    ["input[0].type", { input: [{ type: "reasoning", summary: [] }] }],
    ["input[0].call_id", { input: [{ type: "function_call_output", output: "noon" }] }],
    ["input[0].call_id", { input: [{ type: "function_call_output", call_id: "call_x", output: "noon" }] }],
    ["input[0].arguments", { input: [{ type: "function_call", call_id: "c", name: "now", arguments: {} }] }],
  ])("when %s is wrong, then the 400 names it", (parameter, extra) => {
    expect(refusal({ model: "default", input: "Hi", ...extra }).details?.parameter).toBe(parameter);
  });
});
