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
  const fn = { type: "function", name: "now", parameters: { type: "object" } };
  it("when function tools may be called, then 400 names tools (no function_call output items here)", () => {
    expect(() => mapResponseCreateRequest({ model: "default", input: "Hi", tools: [fn] })).toThrow(
      /function tools are not supported on \/v1\/responses/,
    );
  });

  it("when tools are empty or tool_choice is none, then the request is a plain one", () => {
    expect(mapResponseCreateRequest({ model: "default", input: "Hi", tools: [] }).chat.request.tools).toBeUndefined();
    const none = mapResponseCreateRequest({ model: "default", input: "Hi", tools: [fn], tool_choice: "none" });
    expect(none.chat.request.tools).toBeUndefined();
  });
});
