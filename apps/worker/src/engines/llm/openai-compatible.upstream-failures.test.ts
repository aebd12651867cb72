import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "./fake-openai-server.test-helpers.js";
import type { GenerationInput } from "./llm-engine.js";
import { OpenAiCompatibleLlmEngine, type OpenAiCompatibleLlmEngineOptions } from "./openai-compatible.llm-engine.js";
import { OpenAiCompatibleUpstreamError } from "./openai-compatible.upstream-error.js";

const API_KEY = "sk-secret-0123456789abcdef";
let server: FakeOpenAiServer;

beforeAll(async () => {
  server = await startFakeOpenAiServer();
});

afterAll(async () => {
  await server.close();
});

function makeEngine(overrides: Partial<OpenAiCompatibleLlmEngineOptions> = {}): OpenAiCompatibleLlmEngine {
  return new OpenAiCompatibleLlmEngine({
    baseUrl: server.baseUrl,
    model: "fake-model",
    apiKey: API_KEY,
    maxRetries: 2,
    retryBaseDelayMs: 1,
    timeoutMs: 5_000,
    ...overrides,
  });
}

function input(overrides: Partial<GenerationInput> = {}): GenerationInput {
  return {
    turns: [{ role: "user", content: "tell me about retries" }],
    sampling: { maxTokens: 6, temperature: 0.7, topP: 0.9, seed: 7 },
    signal: new AbortController().signal,
    onProgress: () => undefined,
    ...overrides,
  };
}

/** Runs a generation and counts the requests the fake server received for it. */
async function attempt(engine: OpenAiCompatibleLlmEngine, overrides: Partial<GenerationInput> = {}) {
  const before = server.requests.length;
  const outcome = await engine.generate(input(overrides)).then(
    (result) => ({ result, error: undefined }),
    (error: unknown) => ({ result: undefined, error: error as OpenAiCompatibleUpstreamError }),
  );
  return { ...outcome, requests: server.requests.length - before };
}

const echoAuthorization = (status: number) => ({
  kind: "status" as const,
  status,
  body: (request: { headers: { authorization?: string } }) =>
    JSON.stringify({ error: { message: `Rejected credentials ${request.headers.authorization ?? ""}`, type: "auth" } }),
});

describe("OpenAiCompatibleLlmEngine upstream failures", () => {
  it("when the upstream answers 429 with Retry-After, then it waits and retries", async () => {
    server.enqueue({ kind: "status", status: 429, body: "{}", headers: { "retry-after": "0" } });
    const { result, requests } = await attempt(makeEngine());
    expect(requests).toBe(2);
    expect(result?.tokens).toBe(6);
  });

  it("when the upstream answers 500 twice, then the third attempt succeeds", async () => {
    server.enqueue({ kind: "status", status: 500, body: "oops" }, { kind: "status", status: 503, body: "busy" });
    const { result, requests } = await attempt(makeEngine());
    expect(requests).toBe(3);
    expect(result?.text.length).toBeGreaterThan(0);
  });

  it("when the upstream keeps answering 500, then it fails with the status and the upstream's message", async () => {
    const failure = {
      kind: "status" as const,
      status: 500,
      body: JSON.stringify({ error: { message: "model crashed" } }),
    };
    server.enqueue(failure, failure, failure);
    const { error, requests } = await attempt(makeEngine());
    expect(requests).toBe(3);
    expect(error).toBeInstanceOf(OpenAiCompatibleUpstreamError);
    expect(error?.status).toBe(500);
    expect(error?.message).toBe("Upstream returned HTTP 500: model crashed (after 3 attempts)");
  });

  it("when the upstream answers 401 echoing the credentials, then it fails at once without leaking the key", async () => {
    server.enqueue(echoAuthorization(401));
    const { error, requests } = await attempt(makeEngine());
    expect(requests).toBe(1);
    expect(error?.status).toBe(401);
    expect(error?.message).toMatch(/^Upstream returned HTTP 401: Rejected credentials Bearer \[redacted\]$/);
    expect(error?.message).not.toContain(API_KEY);
    expect(error?.message).not.toContain(API_KEY.slice(0, 12));
  });

  it("when a retried error body echoes the key, then the final message still hides it", async () => {
    server.enqueue(echoAuthorization(502), echoAuthorization(502), echoAuthorization(502));
    const { error } = await attempt(makeEngine());
    expect(error?.message).toContain("HTTP 502");
    expect(error?.message).not.toContain(API_KEY);
  });

  it("when the upstream's error body is long, then the message keeps about 300 characters of it", async () => {
    server.enqueue({ kind: "status", status: 400, body: "x".repeat(5_000) });
    const { error } = await attempt(makeEngine());
    expect(error?.message.length).toBeLessThan(400);
  });

  it("when nothing listens at the base URL, then it retries and reports the network failure", async () => {
    const closed = await startFakeOpenAiServer();
    await closed.close();
    const { error } = await attempt(makeEngine({ baseUrl: closed.baseUrl }));
    expect(error?.message).toMatch(/^Upstream request failed: .*ECONNREFUSED.* \(after 3 attempts\)$/);
  });

  it("when the upstream never answers, then each attempt times out and the error says so", async () => {
    server.enqueue({ kind: "hang" }, { kind: "hang" });
    const { error, requests } = await attempt(makeEngine({ timeoutMs: 100, maxRetries: 1 }));
    expect(requests).toBe(2);
    expect(error?.message).toBe("Upstream sent nothing for 100 ms (after 2 attempts)");
  });

  it("when a stream outlasts the timeout but never pauses that long, then it completes", async () => {
    server.enqueue({ kind: "stream", tokenDelayMs: 100 });
    const { result, error } = await attempt(makeEngine({ timeoutMs: 500 }), {
      sampling: { maxTokens: 8, temperature: 1, topP: 1, seed: 7 },
    });
    expect(error).toBeUndefined();
    expect(result?.tokens).toBe(8);
  });

  it("when the gaps between tokens outlast the timeout but SSE keep-alive comments fill them, then it completes", async () => {
    // The openai client hides comments from its parsed chunks: only a timer that sees raw bytes lets this through.
    server.enqueue({ kind: "stream", tokenDelayMs: 1_200, keepAliveMs: 50 });
    const { result, error, requests } = await attempt(makeEngine({ timeoutMs: 400 }), {
      sampling: { maxTokens: 3, temperature: 1, topP: 1, seed: 7 },
    });
    expect(error).toBeUndefined();
    expect(requests).toBe(1);
    expect(result?.tokens).toBe(3);
  });

  it("when the stream goes silent after tokens, then the idle timeout fails it without a retry", async () => {
    server.enqueue({ kind: "partial", tokens: 2, then: "hang" });
    const { error, requests } = await attempt(makeEngine({ timeoutMs: 100 }));
    expect(requests).toBe(1);
    expect(error?.message).toBe("Upstream sent nothing for 100 ms (after 2 tokens had streamed, so not retried)");
  });

  it("when the connection drops after tokens streamed, then it fails without a retry", async () => {
    server.enqueue({ kind: "partial", tokens: 3, then: "destroy" });
    const { error, requests } = await attempt(makeEngine());
    expect(requests).toBe(1);
    expect(error?.message).toMatch(/^Upstream request failed: .*\(after 3 tokens had streamed, so not retried\)$/);
  });

  it("when the connection drops before any token, then it retries and succeeds", async () => {
    server.enqueue({ kind: "partial", tokens: 0, then: "destroy" });
    const { result, requests } = await attempt(makeEngine());
    expect(requests).toBe(2);
    expect(result?.tokens).toBe(6);
  });

  it("when the upstream ends the response mid-stream, then it fails saying so", async () => {
    server.enqueue({ kind: "partial", tokens: 1, then: "end" });
    const { error } = await attempt(makeEngine());
    expect(error?.message).toMatch(/^Upstream ended the response before the stream finished/);
  });

  it("when Retry-After asks for a wait and the job is aborted during it, then it waits and rejects with the reason", async () => {
    server.enqueue({ kind: "status", status: 503, body: "later", headers: { "retry-after": "60" } });
    const controller = new AbortController();
    const reason = new Error("job cancelled");
    // The engine's wait between attempts, seen by the test: it starts, then only the signal ends it.
    let waiting: (ms: number) => void = () => undefined;
    const waitStarted = new Promise<number>((resolve) => (waiting = resolve));
    const waitBeforeRetry = (ms: number, signal: AbortSignal) => {
      waiting(ms);
      return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason as Error)));
    };
    const engine = makeEngine({ maxRetryDelayMs: 60_000, waitBeforeRetry });
    const turns = [{ role: "user" as const, content: "wait for me" }];
    const outcome = engine.generate(input({ turns, signal: controller.signal }));
    expect(await waitStarted).toBe(60_000); // Retry-After's 60 s, within maxRetryDelayMs
    controller.abort(reason);
    await expect(outcome).rejects.toBe(reason);
    expect(server.requests.filter((r) => r.body.messages?.[0]?.content === "wait for me")).toHaveLength(1);
  });
});
