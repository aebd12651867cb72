import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { fakeReplyWords, startFakeOpenAiServer, type FakeOpenAiServer } from "./fake-openai-server.test-helpers.js";
import type { ChatTurn, GenerationInput } from "./llm-engine.js";
import { describeLlmEngineContract } from "./llm-engine.contract.js";
import {
  OpenAiCompatibleLlmEngine,
  chatCompletionsUrl,
  type OpenAiCompatibleLlmEngineOptions,
} from "./openai-compatible.llm-engine.js";

let server: FakeOpenAiServer;

beforeAll(async () => {
  // Slow enough per token that the contract's abort tests land mid-generation.
  server = await startFakeOpenAiServer({ tokenDelayMs: 2 });
});

afterAll(async () => {
  await server.close();
});

function makeEngine(overrides: Partial<OpenAiCompatibleLlmEngineOptions> = {}): OpenAiCompatibleLlmEngine {
  return new OpenAiCompatibleLlmEngine({
    baseUrl: server.baseUrl,
    model: "fake-model",
    retryBaseDelayMs: 1,
    ...overrides,
  });
}

const TURNS: ChatTurn[] = [
  { role: "system", content: "You are terse." },
  { role: "user", content: "Hello there" },
  { role: "assistant", content: "Hi." },
  { role: "user", content: "Déjà vu: naïve café 日本語 tea" },
];

function input(overrides: Partial<GenerationInput> = {}): GenerationInput {
  return {
    turns: TURNS,
    sampling: { maxTokens: 9, temperature: 0.7, topP: 0.9, seed: 7 },
    signal: new AbortController().signal,
    onProgress: () => undefined,
    ...overrides,
  };
}

describeLlmEngineContract("openai-compatible (fake server)", () =>
  Promise.resolve(makeEngine({ apiKey: "contract-key" })),
);

describe("OpenAiCompatibleLlmEngine", () => {
  it("when generating, then it posts a streaming chat completion request built from the input", async () => {
    await makeEngine({ apiKey: "sk-test-123" }).generate(input());
    const request = server.requests.at(-1);
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe("/v1/chat/completions");
    expect(request?.headers.authorization).toBe("Bearer sk-test-123");
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.body).toEqual({
      model: "fake-model",
      messages: TURNS,
      max_tokens: 9,
      temperature: 0.7,
      top_p: 0.9,
      seed: 7,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it("when the request sets extra sampling fields and a JSON schema, then they are sent under OpenAI's names", async () => {
    const knobs = { presence_penalty: 0.5, frequency_penalty: -1, logit_bias: { "42": -100 }, top_k: 5 };
    const schema = { type: "object", properties: { a: { type: "integer" } } };
    await makeEngine({ samplingExtensions: ["top_k"] }).generate(
      input({
        sampling: { maxTokens: 9, temperature: 0, topP: 0.9, seed: 7, knobs },
        responseFormat: { type: "json_schema", name: "thing", schema, strict: true },
      }),
    );
    expect(server.requests.at(-1)?.body).toMatchObject({
      ...knobs,
      temperature: 0,
      response_format: { type: "json_schema", json_schema: { name: "thing", schema, strict: true } },
    });
  });

  it("when configured with sampling extensions, then its features name OpenAI's fields and those, tools and raw prompts", () => {
    expect(makeEngine({ samplingExtensions: ["min_p"] }).features).toEqual({
      sampling: ["presence_penalty", "frequency_penalty", "logit_bias", "min_p"],
      responseFormats: ["json_object", "json_schema"],
      tools: true,
      rawPrompt: true,
    });
  });

  it("when the server is declared without completions, then its features do not name raw prompts", () => {
    expect(makeEngine({ completions: false }).features.rawPrompt).toBe(false);
  });

  it("when there is no API key, then no Authorization header is sent", async () => {
    await makeEngine().generate(input());
    expect(server.requests.at(-1)?.headers.authorization).toBeUndefined();
  });

  it("when OPENAI_* variables are set in the environment, then none of them reaches a server configured without a key", async () => {
    const fromEnv = {
      OPENAI_API_KEY: "sk-from-env",
      OPENAI_ORG_ID: "org-from-env",
      OPENAI_PROJECT_ID: "proj-from-env",
      OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
    };
    const saved = Object.keys(fromEnv).map((name) => [name, process.env[name]] as const);
    Object.assign(process.env, fromEnv);
    try {
      await makeEngine().generate(input());
    } finally {
      for (const [name, value] of saved) {
        if (value === undefined) Reflect.deleteProperty(process.env, name);
        else process.env[name] = value;
      }
    }
    const headers = server.requests.at(-1)?.headers ?? {};
    expect(headers.authorization).toBeUndefined();
    expect(headers["openai-organization"]).toBeUndefined();
    expect(headers["openai-project"]).toBeUndefined();
  });

  it("when stop sequences are configured, then they are sent upstream", async () => {
    await makeEngine({ stop: ["\nYou:"] }).generate(input());
    expect(server.requests.at(-1)?.body.stop).toEqual(["\nYou:"]);
  });

  it("when the client has stop sequences, then they go first, and no more than the 4 OpenAI takes are sent", async () => {
    const engine = makeEngine({ stop: ["\nYou:", "\nUser:", "\n### User"] });
    await engine.generate(input({ stop: ["END", "FIN"] }));
    expect(server.requests.at(-1)?.body.stop).toEqual(["END", "FIN", "\nYou:", "\nUser:"]);
    const result = await engine.generate(input({ stop: ["A", "B", "C", "D"] }));
    expect(server.requests.at(-1)?.body.stop).toEqual(["A", "B", "C", "D"]);
    expect(result.text.length).toBeGreaterThan(0);
  });

  it("when the stream is split inside events and characters, then the text is exactly the streamed deltas", async () => {
    const result = await makeEngine().generate(input());
    const expected = fakeReplyWords({ messages: TURNS, max_tokens: 9 }).join(" ");
    expect(result.text).toBe(expected);
    expect(result.text).toContain("日本語");
  });

  it("when the upstream reports usage, then tokens and promptTokens come from it", async () => {
    server.enqueue({ kind: "stream", wordsPerDelta: 2 });
    const progress: number[] = [];
    const sampling = { maxTokens: 8, temperature: 1, topP: 1, seed: 7 };
    const result = await makeEngine().generate(input({ sampling, onProgress: (p) => progress.push(p.tokens) }));
    expect(progress).toEqual([1, 2, 3, 4]);
    expect(result.tokens).toBe(8);
    expect(result.promptTokens).toBe(12);
  });

  it("when usage is not requested, then tokens are the count of content deltas and promptTokens is 0", async () => {
    const progress: number[] = [];
    const result = await makeEngine({ includeUsage: false }).generate(
      input({ onProgress: (p) => progress.push(p.tokens) }),
    );
    expect(server.requests.at(-1)?.body.stream_options).toBeUndefined();
    expect(progress).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(result).toMatchObject({ tokens: 9, promptTokens: 0 });
  });

  it("when the upstream sends a finish reason and closes without [DONE], then the reply stands", async () => {
    server.enqueue({ kind: "partial", tokens: 3, then: "finish" });
    const result = await makeEngine().generate(input());
    expect(result.text).toBe(fakeReplyWords({ messages: TURNS, max_tokens: 3 }).join(" "));
    expect(result.tokens).toBe(3);
  });

  it("when closed, then later generations are refused", async () => {
    const engine = makeEngine();
    await engine.close();
    await expect(engine.generate(input())).rejects.toThrow("closed");
  });
});

describe("chatCompletionsUrl", () => {
  it.each([
    ["http://h:8000", "http://h:8000/v1/chat/completions"],
    ["http://h:8000/", "http://h:8000/v1/chat/completions"],
    ["http://h:8000/v1", "http://h:8000/v1/chat/completions"],
    ["http://h:8000/v1/", "http://h:8000/v1/chat/completions"],
    ["https://h/openai/v1", "https://h/openai/v1/chat/completions"],
    ["http://h:11434/proxy", "http://h:11434/proxy/v1/chat/completions"],
  ])("when the base URL is %s, then requests go to %s", (baseUrl, expected) => {
    expect(chatCompletionsUrl(baseUrl)).toBe(expected);
  });

  it("when the base URL ends in /v1/, then the engine still reaches the server", async () => {
    const result = await makeEngine({ baseUrl: `${server.baseUrl}/v1/` }).generate(input());
    expect(result.tokens).toBe(9);
  });
});
