import { afterAll, beforeAll, expect, it } from "@jest/globals";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import OpenAI from "openai";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import {
  startTestWorker,
  type GenerationInput,
  type LlmEngine,
  type TestWorker,
} from "../../../test-support/worker.js";

/** What the engine double was asked, job by job. */
const asked: GenerationInput[] = [];

/**
 * Test double: an engine that takes tools as such (an OpenAI-compatible upstream does: its unit tests
 * check the wire), answering a call when it is sent tools and text otherwise.
 */
const upstreamLike: LlmEngine = {
  name: "test double taking tools",
  contextTokens: 4096,
  features: { sampling: [], responseFormats: ["json_object", "json_schema"], tools: true },
  takesTools: true,
  countPromptTokens: () => Promise.resolve(10),
  generate: (input) => {
    asked.push(input);
    const counts = { finishReason: "stop" as const, tokens: 5, promptTokens: 10, cachedTokens: 0 };
    if (!input.tools) return Promise.resolve({ text: "Sunny.", ...counts });
    const call = { id: "call_fromupstream", name: "get_weather", arguments: '{"city":"Paris"}' };
    return Promise.resolve({ text: "", toolCalls: [call], ...counts });
  },
  close: () => Promise.resolve(),
};

let gw: TestGateway;
let worker: TestWorker;
let server: Server;
let client: OpenAI;

beforeAll(async () => {
  const prefix = uniquePrefix("openai-tools-passthrough");
  gw = await startTestGateway(prefix);
  worker = await startTestWorker(prefix, upstreamLike);
  server = gw.app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  client = new OpenAI({ baseURL, apiKey: await gw.createKey(), maxRetries: 0 });
}, 60_000);
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await worker.close();
  await gw.close();
});

const TOOLS: OpenAI.ChatCompletionTool[] = [
  { type: "function", function: { name: "get_weather", parameters: { type: "object" } } },
];

it("when the engine takes tools as such, then it is sent them (not in the prompt, no forced format) and its call is answered", async () => {
  const completion = await client.chat.completions.create({
    model: "default",
    messages: [{ role: "user", content: "Weather in Paris?" }],
    tools: TOOLS,
    tool_choice: "required",
  });
  expect(completion.choices[0]).toMatchObject({
    finish_reason: "tool_calls",
    message: {
      content: null,
      tool_calls: [
        { id: "call_fromupstream", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
      ],
    },
  });
  const input = asked.at(-1);
  expect(input?.tools).toEqual({
    functions: [{ name: "get_weather", parameters: { type: "object" } }],
    choice: "required",
  });
  expect(input?.responseFormat).toBeUndefined();
  expect(input?.turns[0]?.content).not.toContain("You can call these functions");
}, 30_000);

it("when tool_choice is none, then the engine is sent no tools and the reply is text", async () => {
  const completion = await client.chat.completions.create({
    model: "default",
    messages: [{ role: "user", content: "Weather in Paris?" }],
    tools: TOOLS,
    tool_choice: "none",
  });
  expect(completion.choices[0]?.message).toMatchObject({ content: "Sunny." });
  expect(completion.choices[0]?.finish_reason).toBe("stop");
  expect(asked.at(-1)?.tools).toBeUndefined();
}, 30_000);
