import { afterAll, beforeAll, expect, it } from "@jest/globals";
import { Ajv2020 } from "ajv/dist/2020.js";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateObject, jsonSchema, type JSONSchema7 } from "ai";
import OpenAI from "openai";
import request from "supertest";
import { describeWithModel } from "../../../test-support/fixtures.js";
import type { TestGateway } from "../../../test-support/gateway.js";
import { startOpenAiStack, type OpenAiStack } from "../../../test-support/openai-stack.js";
import { LLAMA_SERVER_BINARY, loadFixtureEngine } from "../../../test-support/worker.js";

/** Bounded (every string and list has a maximum), so a reply always ends well within max_tokens. */
const PERSON = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 1, maxLength: 12 },
    age: { type: "integer", minimum: 0, maximum: 120 },
    mood: { enum: ["happy", "sad", "brave"] },
    friends: { type: "array", items: { type: "string", maxLength: 8 }, maxItems: 3 },
  },
  required: ["name", "age", "mood", "friends"],
  additionalProperties: false,
} as const;

const validatePerson = new Ajv2020({ strict: false }).compile(PERSON);

/**
 * Structured output through llama-server's own constrained sampling (a grammar made from the
 * schema): the fixture model's replies parse and validate, whatever it would say unconstrained.
 */
describeWithModel("structured output on /v1/chat/completions and the native body (llama-server)", () => {
  let stack: OpenAiStack;
  let gw: TestGateway;
  let client: OpenAI;
  let key: string;
  let baseURL: string;

  beforeAll(async () => {
    if (!LLAMA_SERVER_BINARY) throw new Error("these tests need llama-server: run `npm run llama:build`");
    stack = await startOpenAiStack("openai-structured", await loadFixtureEngine(2, 1024, "server"));
    ({ gw, client, key, baseURL } = stack);
  }, 120_000);
  afterAll(() => stack.close(), 60_000);

  const ask = (params: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming>) =>
    client.chat.completions.create({
      model: "default",
      messages: [{ role: "user", content: "Describe a person as JSON." }],
      max_tokens: 400,
      ...params,
    });

  it.each([1, 2, 3])(
    "when json_schema is asked (seed %d), then the reply parses and validates against the schema",
    async (seed) => {
      const completion = await ask({
        seed,
        response_format: { type: "json_schema", json_schema: { name: "person", schema: PERSON, strict: true } },
      });
      const choice = completion.choices[0];
      expect(choice?.finish_reason).toBe("stop");
      const parsed: unknown = JSON.parse(choice?.message.content ?? "");
      expect(validatePerson(parsed)).toBe(true);
    },
    60_000,
  );

  it("when the AI SDK's generateObject asks through @ai-sdk/openai-compatible, then it gets a valid object", async () => {
    const chorus = createOpenAICompatible({ name: "chorus", baseURL, apiKey: key, supportsStructuredOutputs: true });
    const { object, finishReason } = await generateObject({
      model: chorus.chatModel("default"),
      // The same schema, in the mutable JSON Schema type the AI SDK takes.
      schema: jsonSchema<Record<string, unknown>>(PERSON as unknown as JSONSchema7),
      prompt: "Describe a person as JSON.",
      maxOutputTokens: 400,
      seed: 4,
      maxRetries: 0,
    });
    expect(finishReason).toBe("stop");
    expect(validatePerson(object)).toBe(true);
  }, 60_000);

  it("when json_object is asked, then the reply is a JSON object", async () => {
    const completion = await ask({ seed: 5, response_format: { type: "json_object" } });
    expect(completion.choices[0]?.finish_reason).toBe("stop");
    const parsed: unknown = JSON.parse(completion.choices[0]?.message.content ?? "");
    expect(typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)).toBe(true);
  }, 60_000);

  it("when json_schema is streamed, then the deltas add up to JSON that validates", async () => {
    const stream = await client.chat.completions.create({
      model: "default",
      messages: [{ role: "user", content: "Describe a person as JSON." }],
      max_tokens: 400,
      seed: 8,
      stream: true,
      response_format: { type: "json_schema", json_schema: { name: "person", schema: PERSON } },
    });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(validatePerson(JSON.parse(text))).toBe(true);
  }, 60_000);

  it("when the native body asks responseFormat, then the completed reply validates", async () => {
    const res = await request(gw.app)
      .post("/api/text/default")
      .auth(key, { type: "bearer" })
      .set("Prefer", "wait=60")
      .send({
        messages: [{ role: "You", content: "Describe a person as JSON.", index: 0 }],
        samplingParams: { max_tokens: 400, seed: 9 },
        responseFormat: { type: "json_schema", schema: PERSON },
      });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "completed", finishReason: "stop" });
    expect(validatePerson(JSON.parse((res.body as { reply: string }).reply))).toBe(true);
  }, 60_000);

  it("when the schema has a part llama.cpp cannot honour, then 400 names that part and nothing runs", async () => {
    const schema = { type: "object", properties: { tags: { type: "array", uniqueItems: true } } };
    await expect(
      ask({ response_format: { type: "json_schema", json_schema: { name: "tags", schema } } }),
    ).rejects.toMatchObject({ status: 400, param: "response_format.json_schema.schema.properties.tags.uniqueItems" });
  });
});
