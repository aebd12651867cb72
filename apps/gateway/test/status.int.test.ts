import request from "supertest";
import { defaultRequest } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { errorOf, submittedId } from "../../../test-support/response-body.js";

let gw: TestGateway;
let owner: string;
let stranger: string;
let id: string;
beforeAll(async () => {
  gw = await startTestGateway(uniquePrefix("status"));
  owner = await gw.createKey();
  stranger = await gw.createKey();
  id = submittedId(
    await request(gw.app).post("/api/text/default").auth(owner, { type: "bearer" }).send(defaultRequest()),
  );
});
afterAll(() => gw.close());

const poll = (path: string, key: string) => request(gw.app).get(path).auth(key, { type: "bearer" });

describe("status", () => {
  it.each(["/api/v2/status/", "/api/status/"])(
    "when the owner polls %s{id} of a queued job, then it is processing",
    async (path) => {
      const res = await poll(path + id, owner);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: "processing", progress: 0, queuePosition: 0 });
      expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(res.headers["content-length"]).toBe(String(Buffer.byteLength(res.text)));
      expect(res.headers["cache-control"]).toBe("no-store");
    },
  );

  it("when the owner asks with HEAD, then the headers come without a body", async () => {
    const res = await request(gw.app).head(`/api/v2/status/${id}`).auth(owner, { type: "bearer" });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(res.text ?? "").toBe("");
  });

  it("when the job completes, then both paths show the same completed record", async () => {
    await gw.deps.statuses.complete(id, {
      reply: "Once upon a time.",
      tokens: 5,
      promptTokens: 12,
      cachedTokens: 9,
      processingTime: 0.5,
      droppedMessages: 0,
      finishReason: "stop",
      maxTokens: 150,
    });
    const v2 = await poll(`/api/v2/status/${id}`, owner);
    const v1 = await poll(`/api/status/${id}`, owner);
    expect(v2.body).toEqual({
      status: "completed",
      reply: "Once upon a time.",
      tokens: 5,
      promptTokens: 12,
      cachedTokens: 9,
      processingTime: 0.5,
      droppedMessages: 0,
      finishReason: "stop",
      maxTokens: 150,
    });
    expect(v1.body).toEqual(v2.body);
  });

  it("when another key polls the job, then it is 404 exactly as for an unknown id", async () => {
    const theirs = await poll(`/api/v2/status/${id}`, stranger);
    const unknown = await poll("/api/v2/status/00000000-0000-4000-8000-000000000000", stranger);
    expect(theirs.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(errorOf(theirs).code).toBe("NOT_FOUND");
    expect(errorOf(theirs).message.replace(id, "ID")).toBe(
      errorOf(unknown).message.replace("00000000-0000-4000-8000-000000000000", "ID"),
    );
  });

  it("when the record has expired, then it is 404", async () => {
    await gw.deps.redis.del(gw.deps.keys.status(id));
    expect((await poll(`/api/v2/status/${id}`, owner)).status).toBe(404);
  });

  it("when the id is not id-shaped, then it is 404 without a lookup", async () => {
    const res = await poll(`/api/v2/status/${"x".repeat(100)}`, owner);
    expect(res.status).toBe(404);
  });

  it("when a job failed, then the record is error with the reason", async () => {
    const failed = submittedId(
      await request(gw.app).post("/api/text/default").auth(owner, { type: "bearer" }).send(defaultRequest()),
    );
    await gw.deps.statuses.fail(failed, "generation failed: out of memory");
    expect((await poll(`/api/status/${failed}`, owner)).body).toEqual({
      status: "error",
      error: "generation failed: out of memory",
    });
  });
});
