import { afterAll, beforeAll, expect, it } from "@jest/globals";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import OpenAI from "openai";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { startTestWorker, type LlmEngine, type TestWorker } from "../../../test-support/worker.js";

/** Test double: an engine honouring nothing beyond the contract (as node-llama-cpp in process); never generates. */
const engineWithoutExtras: LlmEngine = {
  name: "test double without extras",
  contextTokens: 4096,
  countPromptTokens: () => Promise.resolve(1),
  generate: () => Promise.reject(new Error("the test double must not be asked to generate")),
  close: () => Promise.resolve(),
};

let gw: TestGateway;
let worker: TestWorker;
let server: Server;
let client: OpenAI;
let key: string;

beforeAll(async () => {
  const prefix = uniquePrefix("openai-engine-refusal");
  gw = await startTestGateway(prefix);
  worker = await startTestWorker(prefix, engineWithoutExtras);
  server = gw.app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  key = await gw.createKey();
  client = new OpenAI({ baseURL, apiKey: key, maxRetries: 0 });
}, 60_000);
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await worker.close();
  await gw.close();
});

const ask = (extra: Record<string, unknown>) =>
  client.chat.completions.create({
    model: "default",
    messages: [{ role: "user", content: "Hi" }],
    ...extra,
  } as OpenAI.ChatCompletionCreateParamsNonStreaming);

it("when the worker published that its engine lacks a field, then the gateway answers 400 naming it", async () => {
  await expect(ask({ min_p: 0.1 })).rejects.toMatchObject({ status: 400, param: "min_p" });
});

it("when the engine cannot call tools, then tools are a 400 naming tools", async () => {
  const tools = [{ type: "function", function: { name: "now" } }];
  await expect(ask({ tools })).rejects.toMatchObject({ status: 400, param: "tools" });
  await expect(ask({ tools, tool_choice: "required" })).rejects.toMatchObject({ status: 400, param: "tools" });
});

it("when the engine cannot read a raw prompt, then /v1/completions is a 400 naming prompt", async () => {
  const refused = client.completions.create({ model: "default", prompt: "Once upon a time" });
  await expect(refused).rejects.toMatchObject({ status: 400, param: "prompt" });
  await expect(refused).rejects.toThrow(/text completion .* is not supported by this model's engine/);
});

it("when the gateway has no features for the model, then the worker refuses the job and /v1 answers 400", async () => {
  await gw.deps.redis.del(gw.deps.keys.modelFeatures());
  // A fresh gateway-side reading: the features cache holds the published entry for a few seconds.
  const fresh = await startTestGateway(gw.prefix);
  const freshServer = fresh.app.listen(0, "127.0.0.1");
  await new Promise((resolve) => freshServer.once("listening", resolve));
  try {
    const baseURL = `http://127.0.0.1:${(freshServer.address() as AddressInfo).port}/v1`;
    const freshClient = new OpenAI({ baseURL, apiKey: key, maxRetries: 0 });
    const refused = freshClient.chat.completions.create({
      model: "default",
      messages: [{ role: "user", content: "Hi" }],
      response_format: { type: "json_object" },
    });
    await expect(refused).rejects.toMatchObject({ status: 400 });
    await expect(refused).rejects.toThrow(/structured output \(json_object\) is not supported/);
  } finally {
    await new Promise((resolve) => freshServer.close(resolve));
    await fresh.close();
  }
}, 60_000);
