import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { QUEUES, type ReplyDelta, type RequestsListPage, type StatusRecord } from "@chorus/contracts";
import { createWorkerRedis, type RedisClient } from "@chorus/platform/redis";
import OpenAI from "openai";
import request from "supertest";
import { describeWithModel } from "../../../test-support/fixtures.js";
import type { TestGateway } from "../../../test-support/gateway.js";
import { TEST_REDIS } from "../../../test-support/redis.js";
import { startTestServiceWithSpeech, type TestService } from "../../../test-support/service.js";
import { waitFor } from "../../../test-support/wait-for.js";

const REQUEST_ID = /^chatcmpl-([0-9a-f-]{36})$/;
const STORY = "Tell me a long story about a brave cat and a little dog.";

/**
 * The official `openai` npm client against the gateway's /v1, with the real worker on the fixture model and eSpeak NG.
 */
describeWithModel(
  "the OpenAI-compatible front door driven by the official openai client (stories260K-chatml, eSpeak NG)",
  () => {
    let service: TestService;
    let gw: TestGateway;
    let server: Server;
    let baseURL: string;
    let key: string;
    let client: OpenAI;
    /** What the worker published on the reply-delta channel, by request id. */
    const published = new Map<string, ReplyDelta[]>();
    let deltaSubscriber: RedisClient;

    /** A client as a user holds one; no retries, so every assertion is about the first attempt. */
    const openAi = (apiKey: string) => new OpenAI({ baseURL, apiKey, maxRetries: 0 });

    beforeAll(async () => {
      service = await startTestServiceWithSpeech("openai-front-door");
      gw = service.gw;
      server = gw.app.listen(0, "127.0.0.1");
      await new Promise((resolve) => server.once("listening", resolve));
      baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      key = await gw.createKey({ limits: { text: 1_000_000, status: 1_000_000, tts: 1000 } });
      client = openAi(key);
      deltaSubscriber = createWorkerRedis(TEST_REDIS);
      deltaSubscriber.on("message", (_channel: string, message: string) => {
        const delta = JSON.parse(message) as ReplyDelta;
        published.set(delta.id, [...(published.get(delta.id) ?? []), delta]);
      });
      await deltaSubscriber.subscribe(gw.deps.keys.replyDeltaChannel());
    }, 120_000);
    afterAll(async () => {
      deltaSubscriber.disconnect();
      await new Promise((resolve) => server.close(resolve));
      await service.close();
    }, 60_000);

    /** The native record of a completion, once it is final (the completion id names the request). */
    async function nativeRecord(completionId: string, secret = key): Promise<StatusRecord> {
      const id = REQUEST_ID.exec(completionId)?.[1];
      expect(id).toBeDefined();
      const res = await request(gw.app)
        .get(`/api/v2/status/${String(id)}`)
        .auth(secret, { type: "bearer" })
        .set("Prefer", "wait=30");
      expect(res.status).toBe(200);
      return res.body as StatusRecord;
    }

    it("when the models are listed, then the five text models and the speech model come in OpenAI's list shape", async () => {
      const models = [];
      for await (const model of client.models.list()) models.push(model);
      expect(models.map((m) => m.id)).toEqual(["default", "Witch", "Mage", "Succubus", "Lightning", "tts-1"]);
      for (const model of models)
        expect(model).toEqual({
          id: model.id,
          object: "model",
          created: expect.any(Number),
          owned_by: "chorus",
          chorus_kind: model.id === "tts-1" ? "speech" : "chat",
        });
    });

    it("when a completion is asked for, then a real reply comes with usage equal to the native record's, and the request is listed", async () => {
      const completion = await client.chat.completions.create({
        model: "default",
        messages: [{ role: "user", content: STORY }],
        max_tokens: 60,
      });
      expect(completion.object).toBe("chat.completion");
      expect(completion.model).toBe("default");
      const [choice] = completion.choices;
      expect(choice?.message.role).toBe("assistant");
      expect(choice?.message.content?.trim().length).toBeGreaterThan(0);
      const record = await nativeRecord(completion.id);
      expect(record.status).toBe("completed");
      expect(choice?.message.content).toBe(record.reply);
      expect(choice?.finish_reason).toBe((record.tokens ?? 0) >= 60 ? "length" : "stop");
      expect(completion.usage).toEqual({
        prompt_tokens: record.promptTokens,
        completion_tokens: record.tokens,
        total_tokens: (record.promptTokens ?? 0) + (record.tokens ?? 0),
        prompt_tokens_details: { cached_tokens: record.cachedTokens },
      });
      const listed = await request(gw.app).get("/api/v2/requests").auth(key, { type: "bearer" });
      expect((listed.body as RequestsListPage).data.map((item) => `chatcmpl-${item.id}`)).toContain(completion.id);
      // Nobody streams it: the worker publishes none of its growth.
      expect(published.get(REQUEST_ID.exec(completion.id)?.[1] ?? "")).toBeUndefined();
    });

    it("when a character model gets a system message, then it answers as a completion of that model", async () => {
      const completion = await client.chat.completions.create({
        model: "Witch",
        messages: [
          { role: "system", content: "Answer in one short sentence." },
          { role: "user", content: [{ type: "text", text: "Hello! Who are you?" }] },
        ],
        max_completion_tokens: 40,
      });
      expect(completion.model).toBe("Witch");
      expect(completion.choices[0]?.message.content?.trim().length).toBeGreaterThan(0);
      expect((await nativeRecord(completion.id)).status).toBe("completed");
    });

    it("when the same seed is sent twice, then the replies are the same", async () => {
      const ask = () =>
        client.chat.completions.create({
          model: "default",
          messages: [{ role: "user", content: STORY }],
          seed: 4242,
          temperature: 1,
          max_tokens: 80,
        });
      const [first, second] = [await ask(), await ask()];
      expect(first.id).not.toBe(second.id);
      expect(first.choices[0]?.message.content?.length).toBeGreaterThan(0);
      expect(second.choices[0]?.message.content).toBe(first.choices[0]?.message.content);
    }, 120_000);

    it("when stop sequences are sent, then the reply ends just before the first, streamed or not", async () => {
      const ask = { model: "default", messages: [{ role: "user" as const, content: STORY }], seed: 99, max_tokens: 60 };
      const whole = (await client.chat.completions.create(ask)).choices[0]?.message.content ?? "";
      const words = whole.split(" ");
      const stop = ` ${words[Math.floor(words.length / 2)] ?? ""}`;
      const expected = whole.slice(0, whole.indexOf(stop)).trim();
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.length).toBeLessThan(whole.length);

      const stopped = await client.chat.completions.create({ ...ask, stop: ["\u0007never", stop] });
      expect(stopped.choices[0]?.message.content).toBe(expected);
      expect(stopped.choices[0]?.finish_reason).toBe("stop");
      expect((await nativeRecord(stopped.id)).reply).toBe(expected);

      const stream = await client.chat.completions.create({ ...ask, stop, stream: true });
      let streamed = "";
      for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? "";
      expect(streamed).toBe(expected);
    }, 180_000);

    it("when streamed with include_usage, then the deltas add up to the record's reply, then a finish chunk, the usage and the end", async () => {
      const stream = await client.chat.completions.create({
        model: "default",
        messages: [{ role: "user", content: STORY }],
        max_tokens: 120,
        stream: true,
        stream_options: { include_usage: true },
      });
      const chunks = [];
      for await (const chunk of stream) chunks.push(chunk);
      const id = chunks[0]?.id ?? "";
      expect(chunks.every((chunk) => chunk.id === id && chunk.object === "chat.completion.chunk")).toBe(true);
      expect(chunks[0]?.choices[0]?.delta.role).toBe("assistant");
      const contents = chunks
        .flatMap((chunk) => chunk.choices.map((choice) => choice.delta.content ?? ""))
        .filter((content) => content.length > 0);
      expect(contents.length).toBeGreaterThan(1);
      const record = await nativeRecord(id);
      expect(record.status).toBe("completed");
      expect(contents.join("")).toBe(record.reply);
      // The worker published the reply's growth as it went: contiguous pieces of the reply's start.
      const deltas = published.get(REQUEST_ID.exec(id)?.[1] ?? "") ?? [];
      expect(deltas.length).toBeGreaterThan(0);
      expect(deltas.map((d) => d.at)).toEqual(
        deltas.map((_d, i) => deltas.slice(0, i).reduce((sum, d) => sum + d.text.length, 0)),
      );
      expect(record.reply?.startsWith(deltas.map((d) => d.text).join(""))).toBe(true);
      const finishes = chunks.flatMap((chunk) => chunk.choices.filter((choice) => choice.finish_reason !== null));
      expect(finishes).toHaveLength(1);
      expect(finishes[0]?.finish_reason).toBe((record.tokens ?? 0) >= 120 ? "length" : "stop");
      const last = chunks.at(-1);
      expect(last?.choices).toEqual([]);
      expect(last?.usage).toEqual({
        prompt_tokens: record.promptTokens,
        completion_tokens: record.tokens,
        total_tokens: (record.promptTokens ?? 0) + (record.tokens ?? 0),
        prompt_tokens_details: { cached_tokens: record.cachedTokens },
      });
    }, 180_000);

    /** Runs `body` while the text worker takes no job, so a request stays queued until its client leaves. */
    async function withTextWorkerPaused(body: () => Promise<void>): Promise<void> {
      const textWorker = service.worker.workers.find((worker) => worker.name === QUEUES.text);
      await textWorker?.pause(true);
      try {
        await body();
      } finally {
        await textWorker?.resume();
      }
    }

    it("when a streaming client disconnects, then its job is cancelled", async () => {
      await withTextWorkerPaused(async () => {
        const stream = await client.chat.completions.create({
          model: "default",
          messages: [{ role: "user", content: STORY }],
          max_tokens: 2048,
          stream: true,
        });
        let id = "";
        for await (const chunk of stream) {
          id = chunk.id;
          break; // leaving the loop aborts the response
        }
        expect(await nativeRecord(id)).toMatchObject({ status: "error", error: "cancelled" });
      });
    });

    it("when a client waiting for a whole completion disconnects, then its job is cancelled", async () => {
      const secret = await gw.createKey();
      await withTextWorkerPaused(async () => {
        const leaving = new AbortController();
        const answer = openAi(secret)
          .chat.completions.create(
            { model: "default", messages: [{ role: "user", content: STORY }] },
            { signal: leaving.signal },
          )
          .catch((e: unknown) => e);
        const listed = await waitFor("the completion listed as a request", async () => {
          const data = (
            (await request(gw.app).get("/api/v2/requests").auth(secret, { type: "bearer" })).body as RequestsListPage
          ).data;
          return data.length > 0 ? data : undefined;
        });
        leaving.abort();
        expect(await answer).toBeInstanceOf(OpenAI.APIUserAbortError);
        expect(await nativeRecord(`chatcmpl-${listed[0]?.id ?? ""}`, secret)).toMatchObject({
          status: "error",
          error: "cancelled",
        });
      });
    });

    it("when a completion is sent twice with one Idempotency-Key, then both answers are the one request's", async () => {
      const body = {
        model: "default",
        messages: [{ role: "user" as const, content: "Once upon a time" }],
        max_tokens: 30,
      };
      const first = await client.chat.completions.create(body, { headers: { "Idempotency-Key": "openai-once" } });
      const again = await client.chat.completions.create(body, { headers: { "Idempotency-Key": "openai-once" } });
      expect(again.id).toBe(first.id);
      expect(again.choices[0]?.message.content).toBe(first.choices[0]?.message.content);
    });

    describe("typed errors", () => {
      const chat = (c: OpenAI, model = "default", extra: object = {}) =>
        c.chat.completions.create({ model, messages: [{ role: "user", content: "Hi" }], max_tokens: 5, ...extra });

      it("when the key is wrong, then AuthenticationError (401) in OpenAI's envelope", async () => {
        const error = await chat(openAi("ck_not-a-key")).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
        expect(error).toMatchObject({ status: 401, type: "invalid_request_error", code: "invalid_api_key" });
      });

      it("when the key has no scope for the model, then PermissionDeniedError (403)", async () => {
        const witchOnly = openAi(await gw.createKey({ scopes: ["text:Witch"] }));
        const error = await chat(witchOnly, "default").catch((e: unknown) => e);
        expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
        expect(error).toMatchObject({ status: 403, type: "permission_error" });
      });

      it("when the model is unknown, then NotFoundError (404) naming model", async () => {
        const error = await chat(client, "gpt-4o").catch((e: unknown) => e);
        expect(error).toBeInstanceOf(OpenAI.NotFoundError);
        expect(error).toMatchObject({ status: 404, param: "model", code: "model_not_found" });
      });

      it.each([
        ["n above 1", { n: 2 }, "n"],
        ["a tool_choice without tools", { tool_choice: "required" }, "tool_choice"],
        ["a temperature above 2", { temperature: 2.5 }, "temperature"],
        ["an unknown field", { banana: true }, "banana"],
      ])("when the body has %s, then BadRequestError (400) naming the field", async (_label, extra, param) => {
        const error = await chat(client, "default", extra).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(OpenAI.BadRequestError);
        expect(error).toMatchObject({ status: 400, type: "invalid_request_error", param });
      });

      it("when the model's text budget is spent, then RateLimitError (429) with Retry-After, and no open stream is kept", async () => {
        const { record, secret } = await gw.deps.apiKeys.create("budget-of-one", ["*"], { text: 1 });
        const limited = openAi(secret);
        await chat(limited);
        const error = await chat(limited).catch((e: unknown) => e);
        // The place among the key's open streams, taken while the budget was counted, was given back.
        expect(await gw.deps.redis.zcard(gw.deps.keys.openStreamsOfApiKey(record.id))).toBe(0);
        expect(error).toBeInstanceOf(OpenAI.RateLimitError);
        expect(error).toMatchObject({ status: 429, type: "rate_limit_error", code: "rate_limit_exceeded" });
        expect(
          Number((error as InstanceType<typeof OpenAI.RateLimitError>).headers.get("retry-after")),
        ).toBeGreaterThan(0);
      });

      it("when a /v1 path does not exist, then NotFoundError in OpenAI's envelope; /api keeps its own", async () => {
        const v1 = await request(gw.app).get("/v1/embeddings").auth(key, { type: "bearer" });
        expect(v1.status).toBe(404);
        expect(v1.body).toEqual({
          error: { message: expect.any(String), type: "invalid_request_error", param: null, code: "not_found" },
        });
        const native = await request(gw.app).get("/api/nothing").auth(key, { type: "bearer" });
        expect(native.body).toMatchObject({ error: { code: "NOT_FOUND" }, status: "error" });
      });
    });

    describe("speech", () => {
      const SIGNATURES = {
        mp3: /^(ID3|\xff[\xe2-\xff])/,
        wav: /^RIFF....WAVE/s,
        flac: /^fLaC/,
        opus: /^OggS.{24}OpusHead/s,
      } as const;

      it.each(Object.keys(SIGNATURES) as (keyof typeof SIGNATURES)[])(
        "when %s is asked for with an OpenAI voice, then real audio of that format comes",
        async (format) => {
          const response = await client.audio.speech.create({
            model: "tts-1",
            voice: "alloy",
            input: "Mind the cauldron, it is hot.",
            response_format: format,
          });
          const bytes = Buffer.from(await response.arrayBuffer());
          expect(bytes.length).toBeGreaterThan(1000);
          expect(bytes.subarray(0, 40).toString("latin1")).toMatch(SIGNATURES[format]);
        },
      );

      it("when pcm is asked for with a catalogue voice, then raw 16-bit samples come at the rate the content type names", async () => {
        const response = await client.audio.speech.create({
          model: "tts-1",
          voice: "Witch",
          input: "Mind the cauldron.",
          response_format: "pcm",
        });
        expect(response.headers.get("content-type")).toBe("audio/L16;rate=22050");
        const bytes = Buffer.from(await response.arrayBuffer());
        expect(bytes.length % 2).toBe(0);
        expect(bytes.length).toBeGreaterThan(22050 * 2 * 0.3);
      });

      it("when speech is asked for, then it is streamed as it is made (chunked), and whole with Prefer: stream=false", async () => {
        const body = {
          model: "tts-1",
          voice: "alloy",
          input: "Mind the cauldron. It is hot. The cat sleeps by the fire.",
          response_format: "wav",
        };
        const ask = (prefer?: string) =>
          fetch(`${baseURL}/audio/speech`, {
            method: "POST",
            headers: {
              authorization: `Bearer ${key}`,
              "content-type": "application/json",
              ...(prefer ? { prefer } : {}),
            },
            body: JSON.stringify(body),
          });
        const streamed = await ask();
        expect([
          streamed.status,
          streamed.headers.get("content-length"),
          streamed.headers.get("transfer-encoding"),
        ]).toEqual([200, null, "chunked"]);
        const streamedBytes = Buffer.from(await streamed.arrayBuffer());
        // A streamed WAV's header cannot know the length: it says "unknown" (0xFFFFFFFF), as ffmpeg does on a pipe.
        expect([
          streamedBytes.subarray(0, 4).toString("latin1"),
          streamedBytes.readUInt32LE(4),
          streamedBytes.length > 10_000,
        ]).toEqual(["RIFF", 0xffffffff, true]);
        const whole = await ask("stream=false");
        expect([whole.status, whole.headers.get("preference-applied")]).toEqual([200, "stream=false"]);
        const wholeBytes = Buffer.from(await whole.arrayBuffer());
        expect(Number(whole.headers.get("content-length"))).toBe(wholeBytes.length);
        expect([wholeBytes.subarray(0, 4).toString("latin1"), wholeBytes.readUInt32LE(4)]).toEqual([
          "RIFF",
          wholeBytes.length - 8,
        ]);
      });

      it("when aac is asked for, then BadRequestError naming response_format", async () => {
        const error = await client.audio.speech
          .create({ model: "tts-1", voice: "alloy", input: "Hi.", response_format: "aac" })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(OpenAI.BadRequestError);
        expect(error).toMatchObject({ status: 400, param: "response_format" });
      });

      it("when the key has no tts scope, then PermissionDeniedError", async () => {
        const textOnly = openAi(await gw.createKey({ scopes: ["text:*"] }));
        const error = await textOnly.audio.speech
          .create({ model: "tts-1", voice: "alloy", input: "Hi." })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
      });
    });
  },
);
