import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { ToolsRequest } from "@chorus/contracts";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "./fake-openai-server.test-helpers.js";
import type { GenerationInput } from "./llm-engine.js";
import { OpenAiCompatibleLlmEngine } from "./openai-compatible.llm-engine.js";

let server: FakeOpenAiServer;
beforeAll(async () => {
  server = await startFakeOpenAiServer();
});
afterAll(async () => {
  await server.close();
});

const PARAMS = { type: "object", properties: { city: { type: "string" } } };
const TOOLS: ToolsRequest = {
  functions: [{ name: "get_weather", description: "The weather", parameters: PARAMS }, { name: "now" }],
  choice: { name: "get_weather" },
};

const engine = () => new OpenAiCompatibleLlmEngine({ baseUrl: server.baseUrl, model: "fake-model" });
const input = (overrides: Partial<GenerationInput> = {}): GenerationInput => ({
  turns: [{ role: "user", content: "Weather in Paris?" }],
  sampling: { maxTokens: 20, temperature: 0.7, topP: 1, seed: 1 },
  signal: new AbortController().signal,
  onProgress: () => undefined,
  ...overrides,
});

describe("OpenAiCompatibleLlmEngine: tools passed through", () => {
  it("when the job has tools, then they go upstream as OpenAI's tools and tool_choice, one call at most", async () => {
    await engine().generate(input({ tools: TOOLS }));
    expect(server.requests.at(-1)?.body).toMatchObject({
      tools: [
        { type: "function", function: { name: "get_weather", description: "The weather", parameters: PARAMS } },
        { type: "function", function: { name: "now" } },
      ],
      tool_choice: { type: "function", function: { name: "get_weather" } },
      parallel_tool_calls: false,
    });
  });

  it.each([["auto"], ["required"]] as const)(
    "when the choice is %s, then tool_choice is that string",
    async (choice) => {
      await engine().generate(input({ tools: { ...TOOLS, choice } }));
      expect(server.requests.at(-1)?.body.tool_choice).toBe(choice);
    },
  );

  it("when the upstream answers with a streamed call, then the result holds it assembled, and no text", async () => {
    server.enqueue({ kind: "toolCall", name: "get_weather", arguments: '{"city":"Paris"}' });
    const result = await engine().generate(input({ tools: TOOLS }));
    expect(result).toMatchObject({
      text: "",
      finishReason: "stop",
      toolCalls: [{ id: "call_upstream1", name: "get_weather", arguments: '{"city":"Paris"}' }],
    });
  });

  it("when the job has no tools, then none are sent and a text reply has no calls", async () => {
    const result = await engine().generate(input());
    expect(server.requests.at(-1)?.body.tools).toBeUndefined();
    expect(result.toolCalls).toBeUndefined();
    expect(result.text.length).toBeGreaterThan(0);
  });
});
