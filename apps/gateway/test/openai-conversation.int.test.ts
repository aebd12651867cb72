import { afterAll, beforeAll, expect, it } from "@jest/globals";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import type { StatusRecord } from "@chorus/contracts";
import OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import request from "supertest";
import { describeWithModel } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { loadFixtureEngine, startTestWorker, type LlmEngine, type TestWorker } from "../../../test-support/worker.js";

/** Tokens of context each of the fixture model's slots gets here (the most it takes: llama-server caps it). */
const CONTEXT = 2048;
/** A small MAX_COMPLETION_TOKENS for the second gateway, below what the seeded story below runs to. */
const SMALL_CAP = 160;
const STORY = "Tell me a long story about a brave cat and a little dog.";

/**
 * Conversations as the official `openai` client holds them, against the gateway's /v1 and the real worker on the
 * fixture model with a 2048-token context: the SDK's multi-turn loop, the messages other clients echo, a system
 * prompt past the old character caps, conversations the context cannot hold, and replies without max_tokens.
 */
describeWithModel(
  "/v1 conversations driven by the official openai client (stories260K-chatml, 2048-token context)",
  () => {
    let gw: TestGateway;
    let capped: TestGateway;
    let llm: LlmEngine;
    let worker: TestWorker;
    const servers: Server[] = [];
    let key: string;
    let client: OpenAI;
    let cappedClient: OpenAI;

    async function listen(app: TestGateway["app"]): Promise<string> {
      const server = app.listen(0, "127.0.0.1");
      servers.push(server);
      await new Promise((resolve) => server.once("listening", resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    }

    beforeAll(async () => {
      const prefix = uniquePrefix("openai-conversation");
      gw = await startTestGateway(prefix);
      capped = await startTestGateway(prefix, { MAX_COMPLETION_TOKENS: String(SMALL_CAP) });
      llm = await loadFixtureEngine(2, CONTEXT);
      worker = await startTestWorker(prefix, llm);
      key = await gw.createKey({ limits: { text: 1_000_000, status: 1_000_000 } });
      client = new OpenAI({ baseURL: await listen(gw.app), apiKey: key, maxRetries: 0 });
      cappedClient = new OpenAI({ baseURL: await listen(capped.app), apiKey: key, maxRetries: 0 });
    }, 120_000);
    afterAll(async () => {
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
      await worker.close();
      await llm.close();
      await capped.close();
      await gw.close();
    }, 60_000);

    /** The native record of a completion, once final (its id names the request). */
    async function nativeRecord(completionId: string): Promise<StatusRecord> {
      const id = completionId.replace(/^chatcmpl-/, "");
      const res = await request(gw.app)
        .get(`/api/v2/status/${id}`)
        .auth(key, { type: "bearer" })
        .set("Prefer", "wait=30");
      expect(res.status).toBe(200);
      return res.body as StatusRecord;
    }

    it("when the SDK's documented loop runs 5 turns (the reply pushed back, then a new user message), then every turn is answered", async () => {
      const messages: ChatCompletionMessageParam[] = [{ role: "system", content: "You tell short stories." }];
      for (let turn = 1; turn <= 5; turn++) {
        messages.push({ role: "user", content: `Turn ${turn}: what happens next to the cat?` });
        const completion = await client.chat.completions.create({ model: "default", messages, max_tokens: 40 });
        const [choice] = completion.choices;
        expect(choice?.message.role).toBe("assistant");
        expect(choice?.message.content?.trim().length).toBeGreaterThan(0);
        const record = await nativeRecord(completion.id);
        expect(record.status).toBe("completed");
        expect(choice?.message.content).toBe(record.reply);
        if (choice) messages.push(choice.message);
      }
      expect(messages).toHaveLength(11);
    }, 120_000);

    it("when the reply comes back as Python's model_dump() writes it (every field, nulls included), then the next turn is answered", async () => {
      const first = await client.chat.completions.create({
        model: "Witch",
        messages: [{ role: "user", content: "Hi!" }],
        max_tokens: 30,
      });
      const dumped = {
        annotations: null,
        audio: null,
        function_call: null,
        tool_calls: null,
        ...first.choices[0]?.message,
      };
      const next = await client.chat.completions.create({
        model: "Witch",
        messages: [
          { role: "user", content: "Hi!" },
          dumped as ChatCompletionMessageParam,
          { role: "user", content: "And then?" },
        ],
        max_tokens: 30,
      });
      expect((await nativeRecord(next.id)).status).toBe("completed");
    }, 60_000);

    it("when an assistant called a tool and the tool's result follows, then the next turn is answered", async () => {
      const completion = await client.chat.completions.create({
        model: "default",
        messages: [
          { role: "user", content: "What is the weather in Oslo?" },
          {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } },
            ],
          },
          { role: "tool", tool_call_id: "call_1", content: "Sunny, 12 C" },
          { role: "assistant", content: "", refusal: null },
          { role: "developer", content: "Answer kindly." },
          { role: "user", content: [{ type: "text", text: "So, should I take a coat?" }] },
        ],
        max_tokens: 30,
      });
      expect((await nativeRecord(completion.id)).status).toBe("completed");
    }, 60_000);

    it("when the system prompt is past the old 4000-character cap but the context holds it, then it is answered with it whole", async () => {
      const system =
        "Once upon a time there was a little girl named Lily who loved to play in the park with her dog. ".repeat(48);
      expect(system.length).toBeGreaterThan(4500);
      const completion = await client.chat.completions.create({
        model: "default",
        messages: [
          { role: "system", content: system },
          { role: "user", content: STORY },
        ],
        max_tokens: 30,
      });
      const record = await nativeRecord(completion.id);
      expect(record).toMatchObject({ status: "completed", droppedMessages: 0 });
      expect(completion.usage?.prompt_tokens).toBeGreaterThan(1000);
    }, 60_000);

    it("when even the system prompt and the last message do not fit the context, then 400 context_length_exceeded names its size, whole or streamed", async () => {
      const system = "Lily was a kind girl who liked to play in the park with her big red ball. "
        .repeat(270)
        .slice(0, 20_000);
      const messages: ChatCompletionMessageParam[] = [
        { role: "system", content: system },
        { role: "user", content: STORY },
      ];
      const whole = await client.chat.completions
        .create({ model: "default", messages })
        .catch((error: unknown) => error);
      expect(whole).toBeInstanceOf(OpenAI.BadRequestError);
      expect(whole).toMatchObject({ status: 400, code: "context_length_exceeded", param: "messages" });
      expect((whole as Error).message).toContain(`maximum context length is ${CONTEXT} tokens`);
      const streamed = async () => {
        for await (const chunk of await client.chat.completions.create({ model: "default", messages, stream: true }))
          void chunk;
      };
      await expect(streamed()).rejects.toMatchObject({ code: "context_length_exceeded" });
    }, 60_000);

    it("when the conversation is longer than the context holds, then the oldest turns are dropped and it is answered", async () => {
      const messages: ChatCompletionMessageParam[] = [];
      for (let turn = 0; turn < 40; turn++)
        messages.push({
          role: turn % 2 === 0 ? "user" : "assistant",
          content: `${turn}: Tom and his dog ran to the big tree in the garden and looked at the sky together.`,
        });
      messages.push({ role: "user", content: STORY });
      const completion = await client.chat.completions.create({ model: "default", messages, max_tokens: 30 });
      const record = await nativeRecord(completion.id);
      expect(record.status).toBe("completed");
      expect(record.droppedMessages).toBeGreaterThan(0);
      expect(record.promptTokens ?? 0).toBeLessThan(CONTEXT - 30);
    }, 60_000);
    it("when max_tokens is not sent, then the reply runs until the context is full (not the model's 150), and finish_reason is length at the limit the worker recorded", async () => {
      const completion = await client.chat.completions.create({
        model: "default",
        messages: [{ role: "user", content: STORY }],
        seed: 3,
      });
      const record = await nativeRecord(completion.id);
      // The fixture model never ends a story by itself: it writes until the context is full.
      expect(record.maxTokens).toBe(CONTEXT - (record.promptTokens ?? 0) - 1);
      expect(record.tokens).toBe(record.maxTokens);
      expect(record.tokens).toBeGreaterThan(150);
      expect(completion.choices[0]?.finish_reason).toBe("length");
      expect(completion.usage?.completion_tokens).toBe(record.tokens);
    }, 120_000);

    it("when max_tokens is more than the context leaves, then the reply gets what it leaves, and finish_reason says length there", async () => {
      const messages: ChatCompletionMessageParam[] = [{ role: "user", content: STORY }];
      const completion = await client.chat.completions.create({
        model: "default",
        messages,
        max_tokens: 4000,
        seed: 5,
      });
      const record = await nativeRecord(completion.id);
      expect(record.maxTokens).toBe(CONTEXT - (record.promptTokens ?? 0) - 1);
      expect(record).toMatchObject({ tokens: record.maxTokens, finishReason: "length" });
      expect(completion.choices[0]?.finish_reason).toBe("length");
    }, 120_000);

    it("when the deployment's MAX_COMPLETION_TOKENS is lower, then a reply without max_tokens stops there, and a larger max_tokens is 400", async () => {
      const messages: ChatCompletionMessageParam[] = [{ role: "user", content: STORY }];
      const completion = await cappedClient.chat.completions.create({ model: "default", messages, seed: 3 });
      const record = await nativeRecord(completion.id);
      expect(record).toMatchObject({ maxTokens: SMALL_CAP, tokens: SMALL_CAP, finishReason: "length" });
      expect(completion.choices[0]?.finish_reason).toBe("length");
      const tooMany = cappedClient.chat.completions.create({
        model: "default",
        messages,
        max_completion_tokens: SMALL_CAP + 1,
      });
      await expect(tooMany).rejects.toMatchObject({ status: 400, param: "max_completion_tokens" });
    }, 60_000);

    it("when the native API is asked without max_tokens, then its reply keeps the model's default of 150 tokens", async () => {
      const submitted = await request(gw.app)
        .post("/api/text/default")
        .auth(key, { type: "bearer" })
        .set("Prefer", "wait=60")
        .send({ messages: [{ role: "You", content: STORY, index: 0 }] });
      expect(submitted.body).toMatchObject({
        status: "completed",
        tokens: 150,
        maxTokens: 150,
        finishReason: "length",
      });
    }, 60_000);
  },
);
