import { afterAll, beforeAll, expect, it } from "@jest/globals";
import OpenAI from "openai";
import type { FunctionTool, ResponseFunctionToolCall, ResponseStreamEvent } from "openai/resources/responses/responses";
import { describeWithModel } from "../../../test-support/fixtures.js";
import { SUM, VALIDATORS, WEATHER } from "../../../test-support/tool-schemas.js";
import { startOpenAiStack, type OpenAiStack } from "../../../test-support/openai-stack.js";
import { waitFor } from "../../../test-support/wait-for.js";
import { LLAMA_SERVER_BINARY, loadFixtureEngine } from "../../../test-support/worker.js";

/** Bounded (every string has a maximum), so a call always ends well within max_output_tokens. */

/** The Responses API's flat function tools. */
const TOOLS: FunctionTool[] = [
  { type: "function", name: "get_weather", description: "The weather in a city", parameters: WEATHER, strict: true },
  { type: "function", name: "add", description: "Adds two numbers", parameters: SUM, strict: true },
];

const QUESTION = "What is the weather in Paris?";

/** The one function_call item of an output, whose arguments parse and validate against its function's parameters. */
function expectOneValidCall(output: OpenAI.Responses.ResponseOutputItem[], names: string[]): ResponseFunctionToolCall {
  expect(output).toHaveLength(1);
  const call = output[0];
  if (call?.type !== "function_call") throw new Error(`not a function call: ${JSON.stringify(call)}`);
  expect(call).toMatchObject({ id: expect.stringMatching(/^fc_/), call_id: expect.stringMatching(/^call_/) });
  expect(call.status).toBe("completed");
  expect(names).toContain(call.name);
  expect(VALIDATORS[call.name]?.(JSON.parse(call.arguments))).toBe(true);
  return call;
}

/**
 * Function tools on /v1/responses through llama-server's constrained sampling (the same job as a chat
 * completion with tools): forced calls validate against their parameters even on the fixture model;
 * the official openai client reads them as `function_call` items, whole, streamed and in the background,
 * and sends their outputs back as the loop's next turn.
 */
describeWithModel("function tools on /v1/responses (llama-server, the official openai client)", () => {
  let stack: OpenAiStack;
  let client: OpenAI;

  beforeAll(async () => {
    if (!LLAMA_SERVER_BINARY) throw new Error("these tests need llama-server: run `npm run llama:build`");
    stack = await startOpenAiStack("responses-tools", await loadFixtureEngine(2, 1024, "server"));
    client = stack.client;
  }, 120_000);
  afterAll(() => stack.close(), 60_000);

  const create = (params: Partial<OpenAI.Responses.ResponseCreateParamsNonStreaming>) =>
    client.responses.create({ model: "default", input: QUESTION, max_output_tokens: 200, ...params });

  /** The native record of a response (its id names the request). */
  const nativeRecord = (responseId: string) => stack.nativeRecord(responseId.replace(/^resp_/, ""));

  it.each([1, 2])(
    "when tool_choice is required (try %d), then the output is one valid function_call and the response completed",
    async () => {
      const response = await create({ tools: TOOLS, tool_choice: "required" });
      expect(response.status).toBe("completed");
      expect(response.output_text).toBe("");
      expect(response).toMatchObject({ tools: TOOLS, tool_choice: "required" });
      expectOneValidCall(response.output, ["get_weather", "add"]);
    },
    60_000,
  );

  it("when tool_choice names a function, then the call is to it, and the native record carries it", async () => {
    const response = await create({ tools: TOOLS, tool_choice: { type: "function", name: "add" } });
    const call = expectOneValidCall(response.output, ["add"]);
    expect(await nativeRecord(response.id)).toMatchObject({
      status: "completed",
      reply: "",
      toolCalls: [{ id: call.call_id, name: "add", arguments: call.arguments }],
    });
  }, 60_000);

  it("when the call's output is sent back (the SDK's loop), then the next turn replies in text", async () => {
    const input: OpenAI.Responses.ResponseInput = [{ role: "user", content: QUESTION }];
    const first = await create({ input, tools: TOOLS, tool_choice: { type: "function", name: "get_weather" } });
    const call = expectOneValidCall(first.output, ["get_weather"]);
    // As the SDK documents the loop: the call item echoed back as it came, then its output.
    input.push(call, {
      type: "function_call_output",
      call_id: call.call_id,
      output: JSON.stringify({ temperature: 21 }),
    });
    const second = await create({ input, tools: TOOLS, tool_choice: "none", max_output_tokens: 40 });
    expect(second.output.map((item) => item.type)).toEqual(["message"]);
    expect(second.output_text.length).toBeGreaterThan(0);
    expect(second.tool_choice).toBe("none");
  }, 60_000);

  it("when a forced call is streamed, then the events are OpenAI's for a function_call item, in sequence", async () => {
    const stream = await client.responses.create({
      model: "default",
      input: QUESTION,
      max_output_tokens: 200,
      tools: TOOLS,
      tool_choice: { type: "function", name: "get_weather" },
      stream: true,
    });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.map((event) => event.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const [added, delta, done, itemDone, completed] = events.slice(2);
    if (added?.type !== "response.output_item.added" || delta?.type !== "response.function_call_arguments.delta")
      throw new Error("unexpected events");
    expect(added.item).toMatchObject({
      type: "function_call",
      name: "get_weather",
      arguments: "",
      status: "in_progress",
    });
    expect(VALIDATORS.get_weather?.(JSON.parse(delta.delta))).toBe(true);
    expect(done).toMatchObject({ item_id: added.item.id, output_index: 0, arguments: delta.delta });
    if (itemDone?.type !== "response.output_item.done" || completed?.type !== "response.completed")
      throw new Error("unexpected events");
    expect(completed.response.output).toEqual([itemDone.item]);
    expectOneValidCall(completed.response.output, ["get_weather"]);
  }, 60_000);

  it("when the SDK's stream helper reads a streamed call, then its final response holds the call", async () => {
    const runner = client.responses.stream({
      model: "default",
      input: QUESTION,
      max_output_tokens: 200,
      tools: TOOLS,
      tool_choice: "required",
    });
    const final = await runner.finalResponse();
    expectOneValidCall(final.output, ["get_weather", "add"]);
  }, 60_000);

  it("when a forced call runs in the background, then polling retrieve finds the call", async () => {
    const created = await create({ tools: TOOLS, tool_choice: "required", background: true });
    expect(["queued", "in_progress"]).toContain(created.status);
    const final = await waitFor(
      "the background response to complete",
      async () => {
        const now = await client.responses.retrieve(created.id);
        return now.status === "completed" ? now : null;
      },
      { timeoutMs: 60_000 },
    );
    expectOneValidCall(final.output, ["get_weather", "add"]);
  }, 90_000);

  it("when tool_choice is auto, then the output is a message or a valid call, each in its own shape", async () => {
    const response = await create({ max_output_tokens: 40, tools: TOOLS, tool_choice: "auto" });
    if (response.output[0]?.type === "function_call") expectOneValidCall(response.output, ["get_weather", "add"]);
    else expect(response.output.map((item) => item.type)).toEqual(["message"]);
  }, 60_000);

  it.each([
    [
      "a tool_choice naming no tool",
      { tools: TOOLS, tool_choice: { type: "function", name: "nope" } },
      "tool_choice.name",
    ],
    ["tool_choice required without tools", { tool_choice: "required" }, "tool_choice"],
    ["a built-in tool", { tools: [{ type: "web_search" }] }, "tools[0].type"],
    [
      "parameters llama.cpp cannot honour",
      { tools: [{ type: "function", name: "f", parameters: { type: "object", not: {} }, strict: true }] },
      "tools[0].parameters.not",
    ],
    ["a tool without a name", { tools: [{ type: "function", parameters: WEATHER }] }, "tools[0].name"],
    [
      "a function_call_output without call_id",
      {
        input: [
          { role: "user", content: QUESTION },
          { type: "function_call_output", output: "21" },
        ],
      },
      "input[1].call_id",
    ],
  ])("when the body has %s, then 400 names the field", async (_label, extra, param) => {
    await expect(create(extra as Partial<OpenAI.Responses.ResponseCreateParamsNonStreaming>)).rejects.toMatchObject({
      status: 400,
      param,
    });
  });
});
