import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { MODEL_IDS, QUEUES, REQUEST_LIMITS } from "@chorus/contracts";
import request from "supertest";
import { characterRequest, defaultRequest } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { errorOf } from "../../../test-support/response-body.js";

let gw: TestGateway;
let key: string;
beforeAll(async () => {
  gw = await startTestGateway(uniquePrefix("http"));
  key = await gw.createKey();
});
afterAll(() => gw.close());

const post = (path: string) => request(gw.app).post(path).auth(key, { type: "bearer" });

function expectError(res: request.Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({
    error: { code, message: expect.any(String) },
    status: "error",
    timestamp: expect.any(String),
  });
  expect(JSON.stringify(res.body)).not.toMatch(/\n\s+at /); // no stack trace
}

describe("submitting text over HTTP", () => {
  it.each(MODEL_IDS)("when a valid request goes to %s, then it answers {id, tokens: -1} at once", async (model) => {
    const body = model === "default" ? defaultRequest() : characterRequest();
    const res = await post(`/api/text/${model}`).send(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), tokens: -1 });
  });

  it.each(["witch", "DEFAULT", "gpt-4", "Witch2"])(
    "when the model id is %s, then it is 404 listing the valid ids",
    async (model) => {
      const res = await post(`/api/text/${model}`).send(defaultRequest());
      expectError(res, 404, "NOT_FOUND");
      expect(errorOf(res).message).toContain(MODEL_IDS.join(", "));
    },
  );

  it("when messages are missing, then 400 INVALID_PARAMETER names the parameter and its type", async () => {
    const res = await post("/api/text/default").send({});
    expectError(res, 400, "INVALID_PARAMETER");
    expect(errorOf(res).details).toEqual({
      parameter: "messages",
      expected_type: "array of object",
      problems: [{ parameter: "messages", expected_type: "array of object", message: "messages is required" }],
    });
  });

  it("when a nested field is wrong, then details.parameter is its path", async () => {
    const body = {
      messages: [
        { role: "You", content: "a", index: 0 },
        { role: "Bot", content: "b", index: 1 },
        { role: "You", content: "", index: 2 },
      ],
    };
    const res = await post("/api/text/default").send(body);
    expectError(res, 400, "INVALID_PARAMETER");
    expect(errorOf(res).details).toEqual({
      parameter: "messages[2].content",
      expected_type: "string",
      problems: [
        { parameter: "messages[2].content", expected_type: "string", message: "messages[2].content must not be empty" },
      ],
    });
  });

  it("when a character request lacks botName, then 400 names botName", async () => {
    const { botName: _omitted, ...body } = characterRequest();
    const res = await post("/api/text/Mage").send(body);
    expect(errorOf(res).details).toEqual({
      parameter: "botName",
      expected_type: "string",
      problems: [{ parameter: "botName", expected_type: "string", message: "botName is required" }],
    });
  });

  it("when a Witch request misses several fields and has a bad one, then one answer lists every problem, the first also as details", async () => {
    const body = { samplingParams: { temperature: 9 }, messages: [{ role: "You", content: "Hello", index: 0 }] };
    const res = await post("/api/text/Witch").send(body);
    expectError(res, 400, "INVALID_PARAMETER");
    const { problems, ...first } = errorOf(res).details as {
      problems: { parameter: string; expected_type: string; message: string }[];
    };
    expect(first).toEqual({ parameter: problems[0]!.parameter, expected_type: problems[0]!.expected_type });
    expect(errorOf(res).message).toBe(problems[0]!.message);
    expect(problems.map((p) => p.parameter).sort()).toEqual(
      [
        "botName",
        "messages[0].chatId",
        "messages[0].createdAt",
        "messages[0].id",
        "messages[0].messageIndex",
        "messages[0].userId",
        "samplingParams.temperature",
      ].sort(),
    );
    expect(problems.find((p) => p.parameter === "samplingParams.temperature")).toEqual({
      parameter: "samplingParams.temperature",
      expected_type: "number",
      message: "samplingParams.temperature must be <= 2",
    });
  });

  it("when the JSON is malformed, then it is 400 INVALID_JSON", async () => {
    const res = await post("/api/text/default").set("Content-Type", "application/json").send('{"messages": [');
    expectError(res, 400, "INVALID_JSON");
  });

  it("when the body is not JSON, then it is 415", async () => {
    const res = await post("/api/text/default").set("Content-Type", "text/plain").send("hello");
    expectError(res, 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  it.each(["/api/text/default", "/api/audio/full"])(
    "when %s gets Content-Type: application/json and no body, then it is 400 naming body",
    async (path) => {
      const res = await post(path).set("Content-Type", "application/json");
      expectError(res, 400, "INVALID_PARAMETER");
      expect(errorOf(res).details).toEqual({
        parameter: "body",
        expected_type: "object",
        problems: [{ parameter: "body", expected_type: "object", message: "a JSON body is required" }],
      });
    },
  );

  it.each([
    ["GET", "/api/text/default", "POST"],
    ["PUT", "/api/v2/status/abc", "DELETE, GET, HEAD"],
    ["GET", "/api/audio/full", "POST"],
  ])(
    "when %s %s (a known path, another method) comes with a valid key, then it is 405 with Allow: %s",
    async (method, path, allow) => {
      const res = await request(gw.app)[method.toLowerCase() as "get" | "put"](path).auth(key, { type: "bearer" });
      expectError(res, 405, "METHOD_NOT_ALLOWED");
      expect(res.headers.allow).toBe(allow);
    },
  );

  it("when a known path with another method comes without a key, then it is 401 like any path", async () => {
    expect((await request(gw.app).get("/api/text/default")).status).toBe(401);
  });

  it("when the body is over the limit, then it is 413", async () => {
    const huge = JSON.stringify({
      messages: [{ role: "You", content: "x".repeat(REQUEST_LIMITS.maxBodyBytes), index: 0 }],
    });
    const res = await post("/api/text/default").set("Content-Type", "application/json").send(huge);
    expectError(res, 413, "PAYLOAD_TOO_LARGE");
  });

  it("when the JSON body is a bare value, then it is 400 about the body", async () => {
    const res = await post("/api/text/default").set("Content-Type", "application/json").send("42");
    expectError(res, 400, "INVALID_PARAMETER");
    expect(errorOf(res).details?.parameter).toBe("body");
  });

  it("when the path is unknown, then it is 404 in the envelope", async () => {
    expectError(await request(gw.app).get("/api/nothing-here").auth(key, { type: "bearer" }), 404, "NOT_FOUND");
  });

  it("when speech is switched off on this deployment, then a valid request is 503 in the envelope", async () => {
    const off = await startTestGateway(gw.prefix, { TTS_ENABLED: "false" });
    try {
      const res = await request(off.app).post("/api/tts").auth(key, { type: "bearer" }).send({ text: "hello" });
      expectError(res, 503, "SERVICE_UNAVAILABLE");
    } finally {
      await off.close({ keepKeys: true });
    }
  });

  it("when no worker synthesizes in time, then speech is 503 with a clear message and the job is dropped", async () => {
    const impatient = await startTestGateway(gw.prefix, { TTS_TIMEOUT_MS: "1000" });
    try {
      const res = await request(impatient.app)
        .post("/api/audio/full")
        .auth(key, { type: "bearer" })
        .send({ text: "hello" });
      expectError(res, 503, "SERVICE_UNAVAILABLE");
      expect(errorOf(res).message).toMatch(/did not finish within 1 s/);
      expect(
        await impatient.deps.redis.keys(`${gw.deps.keys.bullPrefix(QUEUES.speech)}:${QUEUES.speech}:[0-9a-f]*-*`),
      ).toEqual([]);
    } finally {
      await impatient.close({ keepKeys: true });
    }
  });
});
