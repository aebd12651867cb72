import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, jest } from "@jest/globals";
import type { Server } from "node:http";
import OpenAI from "openai";
import { describeWithModel } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { listenOnLoopback, startOpenAiStack, type OpenAiStack } from "../../../test-support/openai-stack.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { loadFixtureEngine } from "../../../test-support/worker.js";

/**
 * Failures that would repeat, as the official openai client meets them: it must raise at once (one
 * request), not retry them twice as it does a plain 5xx.
 */
describeWithModel("/v1 answers to failed generations (official openai client, stories260K-chatml)", () => {
  let stack: OpenAiStack;
  let sent = 0;
  let openai: OpenAI;

  beforeAll(async () => {
    stack = await startOpenAiStack("openai-failures", await loadFixtureEngine(), {
      // A time limit no long reply fits in: such a request fails the same way every time.
      worker: { jobTimeLimitMs: 300 },
      limits: null,
      // The SDK's own retries on (two, its default): each request it sends is counted.
      client: { maxRetries: 2, fetch: (url, init) => (sent++, fetch(url, init)) },
    });
    openai = stack.client;
  }, 120_000);
  afterAll(() => stack.close(), 60_000);

  const long = { model: "default", max_tokens: 2048, temperature: 1.5 } as const;
  const messages = [{ role: "user" as const, content: "Tell me a very long story." }];

  it("when a generation runs past the worker's time limit, then it is 504 with x-should-retry false, sent once", async () => {
    sent = 0;
    const error = await openai.chat.completions.create({ ...long, messages }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({ status: 504, code: "time_limit_exceeded" });
    expect((error as InstanceType<typeof OpenAI.APIError>).headers?.get("x-should-retry")).toBe("false");
    expect(sent).toBe(1);
  });

  it("when a streamed generation runs past the time limit, then the stream's error event raises in the SDK", async () => {
    const stream = await openai.chat.completions.create({ ...long, messages, stream: true });
    const read = (async () => {
      for await (const chunk of stream) void chunk;
    })();
    await expect(read).rejects.toMatchObject({ message: expect.stringContaining("time limit") });
  });
});

/** A stream broken off after its headers must end with an error the SDK raises, never as if whole. */
describe("a /v1 stream cut off after its headers (no worker: the request waits in the queue)", () => {
  let gw: TestGateway;
  let server: Server;
  let openai: OpenAI;

  beforeEach(async () => {
    gw = await startTestGateway(uniquePrefix("openai-cut"));
    let baseURL: string;
    ({ server, baseURL } = await listenOnLoopback(gw.app));
    openai = new OpenAI({ baseURL, apiKey: await gw.createKey(), maxRetries: 0 });
  });
  afterEach(async () => {
    await new Promise((resolve) => server.close(resolve));
    await gw.close();
  });

  /** Opens a streamed completion, reads its first chunk, runs `cut`, then reads on. */
  async function readAfter(cut: (id: string) => Promise<void> | void): Promise<unknown> {
    const stream = await openai.chat.completions.create({
      model: "default",
      messages: [{ role: "user", content: "Hi" }],
      stream: true,
    });
    return (async () => {
      for await (const chunk of stream) if (chunk.choices[0]?.delta.role) await cut(chunk.id.replace(/^chatcmpl-/, ""));
    })().then(
      () => null,
      (error: unknown) => error,
    );
  }

  it("when the gateway shuts down, then the stream ends with an error event the SDK raises", async () => {
    const raised = await readAfter(() => gw.deps.statusChanges.close());
    expect(raised).toBeInstanceOf(OpenAI.APIError);
    expect((raised as Error).message).toContain("shutting down");
  });

  it("when reading the record fails (Redis), then the stream ends with an error event the SDK raises", async () => {
    const raised = await readAfter(async (id) => {
      jest.spyOn(gw.deps.statuses, "get").mockRejectedValue(new Error("Connection is closed."));
      await gw.deps.redis.publish(gw.deps.keys.statusChangedChannel(), id);
    });
    expect(raised).toBeInstanceOf(OpenAI.APIError);
    expect((raised as Error).message).toContain("the stream broke off");
  });
});
