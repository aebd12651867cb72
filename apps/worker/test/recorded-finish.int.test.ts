import { afterAll, beforeAll, expect, it } from "@jest/globals";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { StatusRecord } from "@chorus/contracts";
import OpenAI from "openai";
import request from "supertest";
import { loadCharacterCatalog } from "../src/characters/character-catalog.js";
import { checkModelsConfig } from "../src/models/load-models-config.js";
import { createModelRegistry, type ModelRegistry } from "../src/models/model-registry.js";
import { characterRequest, describeWithModel, FIXTURE_MODEL } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { testLogger } from "../../../test-support/logger.js";
import { finalRecord } from "../../../test-support/records.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import {
  LLAMA_SERVER_BINARY,
  startTestWorker,
  TEST_LLAMA_THREADS,
  type TestWorker,
} from "../../../test-support/worker.js";

/** Witch's configured default: far below the gateway's own (150), so a reply cut there is `length` only by it. */
const WITCH_MAX_TOKENS = 3;

describeWithModel("what the worker used, recorded (a models config whose default differs from the gateway's)", () => {
  let gw: TestGateway;
  let worker: TestWorker;
  let registry: ModelRegistry;
  let server: Server;
  let key: string;
  let openai: OpenAI;

  beforeAll(async () => {
    const prefix = uniquePrefix("recorded-finish");
    const config = checkModelsConfig(
      {
        engines: { local: { type: "llama", model: FIXTURE_MODEL } },
        models: Object.fromEntries(
          ["default", "Witch", "Mage", "Succubus", "Lightning"].map((id) => [
            id,
            id === "Witch" ? { engine: "local", sampling: { max_tokens: WITCH_MAX_TOKENS } } : { engine: "local" },
          ]),
        ),
      },
      "the test's models config",
    );
    registry = await createModelRegistry(config, await loadCharacterCatalog(), {
      threads: TEST_LLAMA_THREADS,
      sequences: 2,
      contextSize: 1024,
      gpu: false,
      llamaRuntime: "auto",
      llamaServerBinary: LLAMA_SERVER_BINARY,
      modelsDir: "/tmp",
      promptCacheMiB: 0,
      env: { UV_THREADPOOL_SIZE: "1" },
      logger: testLogger("worker"),
    });
    gw = await startTestGateway(prefix);
    worker = await startTestWorker(prefix, registry.modelFor("default").engine, { modelFor: registry.modelFor });
    server = gw.app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    key = await gw.createKey();
    openai = new OpenAI({
      baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      apiKey: key,
      maxRetries: 0,
    });
  }, 120_000);
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await worker.close();
    await registry.close();
    await gw.close();
  }, 60_000);

  const messages = [{ role: "user" as const, content: "Tell me a long story about a cat." }];

  const recordOf = async (id: string) =>
    (await request(gw.app).get(`/api/v2/status/${id}`).auth(key, { type: "bearer" })).body as StatusRecord;

  it("when the native API sends no max_tokens, then the reply stops at the model's default and the record says length", async () => {
    const submitted = await request(gw.app)
      .post("/api/text/Witch")
      .auth(key, { type: "bearer" })
      .send(characterRequest("Morwenna", "Tell me a long story about a cat."));
    const record = await finalRecord(gw.app, key, (submitted.body as { id: string }).id);
    expect(record).toMatchObject({
      status: "completed",
      tokens: WITCH_MAX_TOKENS,
      maxTokens: WITCH_MAX_TOKENS,
      finishReason: "length",
    });
  });

  it("when /v1 sends no max_tokens, then the reply is not cut at the model's default, and finish_reason is the record's", async () => {
    const completion = await openai.chat.completions.create({ model: "Witch", messages });
    const record = await recordOf(completion.id.replace(/^chatcmpl-/, ""));
    const reason = completion.choices[0]?.finish_reason;
    expect(completion.usage?.completion_tokens).toBeGreaterThan(WITCH_MAX_TOKENS);
    expect(record.maxTokens).toBeGreaterThan(WITCH_MAX_TOKENS);
    expect(record).toMatchObject({ status: "completed", finishReason: reason });
    // length exactly when the limit the worker used was reached.
    expect(reason === "length").toBe(completion.usage?.completion_tokens === record.maxTokens);
  });

  it("when the completion is streamed, then its last chunk says length too", async () => {
    const reasons: (string | null)[] = [];
    for await (const chunk of await openai.chat.completions.create({ model: "Witch", messages, stream: true }))
      for (const choice of chunk.choices) reasons.push(choice.finish_reason);
    expect(reasons.filter((reason) => reason !== null)).toEqual(["length"]);
  });

  it("when the client's max_tokens is above the model's default, then the client's is the limit recorded", async () => {
    const completion = await openai.chat.completions.create({ model: "Witch", messages, max_tokens: 40, stop: ["e"] });
    const id = completion.id.replace(/^chatcmpl-/, "");
    const record = (await request(gw.app).get(`/api/v2/status/${id}`).auth(key, { type: "bearer" }))
      .body as StatusRecord;
    expect(record).toMatchObject({ status: "completed", maxTokens: 40, finishReason: "stop" });
    expect(completion.choices[0]?.finish_reason).toBe("stop");
  });

  it("when a request is cancelled, then its record says why it ended", async () => {
    const held = await request(gw.app)
      .post("/api/text/default")
      .auth(key, { type: "bearer" })
      .send({ messages: [{ role: "You", content: "Hello", index: 0 }], samplingParams: { max_tokens: 2048 } });
    const id = (held.body as { id: string }).id;
    const cancelled = await request(gw.app).delete(`/api/v2/status/${id}`).auth(key, { type: "bearer" });
    expect(cancelled.body).toMatchObject({
      status: "error",
      error: "cancelled",
      errorCode: "cancelled",
      finishReason: "cancelled",
    });
  });
});
