import { afterAll, beforeAll, expect, it } from "@jest/globals";
import type { StatusRecord } from "@chorus/contracts";
import OpenAI from "openai";
import request from "supertest";
import { describeWithModel } from "../../../test-support/fixtures.js";
import { SUM, VALIDATORS, WEATHER } from "../../../test-support/tool-schemas.js";
import type { TestGateway } from "../../../test-support/gateway.js";
import { startOpenAiStack, type OpenAiStack } from "../../../test-support/openai-stack.js";
import { LLAMA_SERVER_BINARY, loadFixtureEngine } from "../../../test-support/worker.js";

/** Bounded (every string has a maximum), so a call always ends well within max_tokens. */

const TOOLS: OpenAI.ChatCompletionTool[] = [
  { type: "function", function: { name: "get_weather", description: "The weather in a city", parameters: WEATHER } },
  { type: "function", function: { name: "add", description: "Adds two numbers", parameters: SUM } },
];

const QUESTION: OpenAI.ChatCompletionMessageParam = { role: "user", content: "What is the weather in Paris?" };

/** A call as OpenAI shapes it, whose arguments parse and validate against its function's parameters. */
function expectValidCall(call: OpenAI.ChatCompletionMessageToolCall | undefined, names: string[]): void {
  expect(call).toMatchObject({ id: expect.stringMatching(/^call_/), type: "function" });
  if (call?.type !== "function") throw new Error("not a function call");
  expect(names).toContain(call.function.name);
  const args: unknown = JSON.parse(call.function.arguments);
  expect(VALIDATORS[call.function.name]?.(args)).toBe(true);
}

/**
 * Tools through llama-server's constrained sampling: a forced call (required, or a named function) is
 * sampled under a grammar made from the functions' parameters, so the fixture model's calls parse and
 * validate whatever it would write unconstrained; the official openai client reads them.
 */
describeWithModel("tools on /v1/chat/completions (llama-server, the official openai client)", () => {
  let stack: OpenAiStack;
  let gw: TestGateway;
  let client: OpenAI;
  let key: string;

  beforeAll(async () => {
    if (!LLAMA_SERVER_BINARY) throw new Error("these tests need llama-server: run `npm run llama:build`");
    stack = await startOpenAiStack("openai-tools", await loadFixtureEngine(2, 1024, "server"));
    ({ gw, client, key } = stack);
  }, 120_000);
  afterAll(() => stack.close(), 60_000);

  const ask = (params: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming>) =>
    client.chat.completions.create({ model: "default", messages: [QUESTION], max_tokens: 200, ...params });

  /** The native record of a completion (its id names the request). */
  async function nativeRecord(completionId: string): Promise<StatusRecord> {
    const res = await request(gw.app)
      .get(`/api/v2/status/${completionId.replace(/^chatcmpl-/, "")}`)
      .auth(key, { type: "bearer" });
    expect(res.status).toBe(200);
    return res.body as StatusRecord;
  }

  it.each([1, 2, 3])(
    "when tool_choice is required (seed %d), then the reply is one valid call, content null, finish_reason tool_calls",
    async (seed) => {
      const completion = await ask({ seed, tools: TOOLS, tool_choice: "required" });
      const choice = completion.choices[0];
      expect(choice?.finish_reason).toBe("tool_calls");
      expect(choice?.message.content).toBeNull();
      expect(choice?.message.tool_calls).toHaveLength(1);
      expectValidCall(choice?.message.tool_calls?.[0], ["get_weather", "add"]);
    },
    60_000,
  );

  it.each([4, 5])(
    "when tool_choice names a function (seed %d), then the call is to it and validates",
    async (seed) => {
      const completion = await ask({
        seed,
        tools: TOOLS,
        tool_choice: { type: "function", function: { name: "add" } },
      });
      expect(completion.choices[0]?.finish_reason).toBe("tool_calls");
      expectValidCall(completion.choices[0]?.message.tool_calls?.[0], ["add"]);
    },
    60_000,
  );

  it("when a call is made, then the native record carries it and an empty reply", async () => {
    const completion = await ask({ seed: 6, tools: TOOLS, tool_choice: "required" });
    const call = completion.choices[0]?.message.tool_calls?.[0];
    if (call?.type !== "function") throw new Error("no function call");
    expect(await nativeRecord(completion.id)).toMatchObject({
      status: "completed",
      reply: "",
      toolCalls: [{ id: call.id, name: call.function.name, arguments: call.function.arguments }],
    });
  }, 60_000);

  it("when a forced call is streamed, then the chunks carry it as tool_calls deltas, and finish_reason tool_calls", async () => {
    const stream = await client.chat.completions.create({
      model: "default",
      messages: [QUESTION],
      max_tokens: 200,
      seed: 7,
      stream: true,
      tools: TOOLS,
      tool_choice: { type: "function", function: { name: "get_weather" } },
    });
    const calls = new Map<number, { id?: string; name: string; arguments: string }>();
    let content = "";
    let finish: string | null = null;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      content += choice?.delta.content ?? "";
      for (const piece of choice?.delta.tool_calls ?? []) {
        const call = calls.get(piece.index) ?? { name: "", arguments: "" };
        calls.set(piece.index, {
          id: piece.id ?? call.id,
          name: call.name + (piece.function?.name ?? ""),
          arguments: call.arguments + (piece.function?.arguments ?? ""),
        });
      }
      finish = choice?.finish_reason ?? finish;
    }
    expect(finish).toBe("tool_calls");
    expect(content).toBe("");
    expect(calls.size).toBe(1);
    const call = calls.get(0);
    expect(call?.id).toMatch(/^call_/);
    expect(call?.name).toBe("get_weather");
    expect(VALIDATORS.get_weather?.(JSON.parse(call?.arguments ?? ""))).toBe(true);
  }, 60_000);

  it("when the SDK's stream helper reads a streamed call, then its final message holds the call", async () => {
    const runner = client.chat.completions.stream({
      model: "default",
      messages: [QUESTION],
      max_tokens: 200,
      seed: 8,
      tools: TOOLS,
      tool_choice: "required",
    });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]?.finish_reason).toBe("tool_calls");
    expectValidCall(final.choices[0]?.message.tool_calls?.[0], ["get_weather", "add"]);
  }, 60_000);

  it("when the tool's result is sent back (the SDK's round trip), then the model replies in text", async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [QUESTION];
    const first = await client.chat.completions.create({
      model: "default",
      messages,
      max_tokens: 200,
      seed: 9,
      tools: TOOLS,
      tool_choice: { type: "function", function: { name: "get_weather" } },
    });
    const message = first.choices[0]!.message;
    const call = message.tool_calls?.[0];
    if (call?.type !== "function") throw new Error("no function call");
    // As the SDK documents it: the assistant's message pushed back as it came, then the tool's result.
    messages.push(message);
    messages.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify({ temperature: 21 }) });
    const second = await client.chat.completions.create({
      model: "default",
      messages,
      max_tokens: 40,
      seed: 10,
      tools: TOOLS,
      tool_choice: "none",
    });
    const reply = second.choices[0];
    expect(reply?.message.tool_calls).toBeUndefined();
    expect(typeof reply?.message.content).toBe("string");
    expect(reply?.message.content?.length).toBeGreaterThan(0);
    expect(["stop", "length"]).toContain(reply?.finish_reason);
  }, 60_000);

  it("when tool_choice is auto, then the reply is text or a valid call, each in its own shape", async () => {
    const completion = await ask({ seed: 11, max_tokens: 40, tools: TOOLS, tool_choice: "auto" });
    const choice = completion.choices[0];
    if (choice?.finish_reason === "tool_calls") expectValidCall(choice.message.tool_calls?.[0], ["get_weather", "add"]);
    else {
      expect(choice?.message.tool_calls).toBeUndefined();
      expect(typeof choice?.message.content).toBe("string");
    }
  }, 60_000);

  it.each([
    [
      "a tool_choice naming no tool",
      { tools: TOOLS, tool_choice: { type: "function", function: { name: "nope" } } },
      "tool_choice.function.name",
    ],
    ["tool_choice required without tools", { tool_choice: "required" }, "tool_choice"],
    ["a tool type other than function", { tools: [{ type: "custom", custom: { name: "x" } }] }, "tools[0].type"],
    [
      "parameters llama.cpp cannot honour",
      { tools: [{ type: "function", function: { name: "f", parameters: { type: "object", not: {} } } }] },
      "tools[0].function.parameters.not",
    ],
    ["tools with response_format", { tools: TOOLS, response_format: { type: "json_object" } }, "response_format"],
  ])("when the body has %s, then 400 names the field", async (_label, extra, param) => {
    await expect(ask(extra as Partial<OpenAI.ChatCompletionCreateParamsNonStreaming>)).rejects.toMatchObject({
      status: 400,
      param,
    });
  });
});
