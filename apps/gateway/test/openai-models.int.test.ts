import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import OpenAI, { NotFoundError } from "openai";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";

const TEXT_MODELS = ["default", "Witch", "Mage", "Succubus", "Lightning"];

/** GET /v1/models and /v1/models/{id} through the official `openai` client: only what the key's scopes allow. */
describe("the OpenAI models endpoints driven by the official openai client", () => {
  let gw: TestGateway;
  let server: Server;
  let baseURL: string;

  /** A client holding a new key with `scopes`; no retries, so every assertion is about the first attempt. */
  const clientWith = async (scopes: string[]) =>
    new OpenAI({ baseURL, apiKey: await gw.createKey({ scopes }), maxRetries: 0 });
  const listedIds = async (client: OpenAI) => {
    const ids = [];
    for await (const model of client.models.list()) ids.push(model.id);
    return ids;
  };

  beforeAll(async () => {
    gw = await startTestGateway(uniquePrefix("openai-models"));
    server = gw.app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await gw.close();
  });

  it("when a key with every scope lists the models, then the text models are chat and tts-1 is speech", async () => {
    const client = await clientWith(["*"]);
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models).toEqual([
      ...TEXT_MODELS.map((id) => expect.objectContaining({ id, object: "model", chorus_kind: "chat" })),
      expect.objectContaining({ id: "tts-1", object: "model", chorus_kind: "speech" }),
    ]);
    for (const model of models)
      expect(model).toEqual({
        id: model.id,
        object: "model",
        created: expect.any(Number),
        owned_by: "chorus",
        chorus_kind: expect.any(String),
      });
  });

  it.each([
    [["text:Witch"], ["Witch"]],
    [
      ["text:Witch", "text:Mage"],
      ["Witch", "Mage"],
    ],
    [["text:*"], TEXT_MODELS],
    [["tts"], ["tts-1"]],
    [
      ["text:Lightning", "tts"],
      ["Lightning", "tts-1"],
    ],
  ])("when a key with scopes %p lists the models, then only %p come", async (scopes, expected) => {
    expect(await listedIds(await clientWith(scopes))).toEqual(expected);
  });

  it("when a model the key may use is retrieved, then it comes in OpenAI's model shape", async () => {
    const client = await clientWith(["text:Witch", "tts"]);
    const listed = [];
    for await (const model of client.models.list()) listed.push(model);
    expect(await client.models.retrieve("Witch")).toEqual(listed[0]);
    expect(await client.models.retrieve("tts-1")).toEqual(listed[1]);
    expect(listed[0]).toMatchObject({ id: "Witch", chorus_kind: "chat" });
  });

  it.each([
    ["an unknown model", ["*"], "gpt-4o"],
    ["a text model outside the key's scopes", ["text:Witch"], "Mage"],
    ["the speech model without the tts scope", ["text:*"], "tts-1"],
    ["a model named in another case", ["*"], "witch"],
  ])("when %s is retrieved, then 404 model_not_found naming model", async (_case, scopes, id) => {
    const client = await clientWith(scopes);
    const error = await client.models.retrieve(id).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({
      status: 404,
      error: { type: "invalid_request_error", code: "model_not_found", param: "model" },
    });
  });

  it("when the models are listed without a key, then 401 in OpenAI's envelope", async () => {
    const client = new OpenAI({ baseURL, apiKey: "not-a-key", maxRetries: 0 });
    const error = await client.models.retrieve("Witch").catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 401, error: { code: "invalid_api_key" } });
  });
});
