import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { ErrorEnvelope } from "@chorus/contracts";
import { CachedApiKeys } from "@chorus/platform/api-keys";
import request from "supertest";
import { buildApp } from "../src/app.js";
import { defaultRequest } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { errorOf } from "../../../test-support/response-body.js";

let gw: TestGateway;
let client = 0;
const nextAddress = () => `10.9.0.${++client}`;
beforeAll(async () => {
  gw = await startTestGateway(uniquePrefix("auth"), { AUTH_FAILURE_LIMIT: "5" });
});
afterAll(() => gw.close());

function expectEnvelope(body: unknown, code: string) {
  expect(body).toEqual({
    error: { code, message: expect.any(String) },
    status: "error",
    timestamp: expect.any(String),
  });
  const { timestamp } = body as ErrorEnvelope;
  expect(new Date(timestamp).toISOString()).toBe(timestamp);
}

describe("authentication", () => {
  it.each([
    ["no Authorization header", undefined],
    ["a non-Bearer scheme", "Basic dXNlcjpwYXNz"],
    ["an unknown key", "Bearer ck_this-key-does-not-exist"],
    ["a key without our prefix", "Bearer sk-something"],
  ])("when a request has %s, then it is 401 UNAUTHORIZED in the envelope", async (_label, header) => {
    const req = request(gw.app).get("/api/v2/status/abc");
    const res = await (header ? req.set("Authorization", header) : req).set("X-Forwarded-For", nextAddress());
    expect(res.status).toBe(401);
    expectEnvelope(res.body, "UNAUTHORIZED");
  });

  // Every API route authenticates in its own chain; this list must name each /api route of the app.
  const API_ENDPOINTS: [string, string][] = [
    ["get", "/api/v2/status/:id"],
    ["delete", "/api/v2/status/:id"],
    ["get", "/api/status/:id"],
    ["delete", "/api/status/:id"],
    ["get", "/api/v2/status/:id/audio"],
    ["get", "/api/status/:id/audio"],
    ["get", "/api/v2/status"],
    ["get", "/api/v2/requests"],
    ["get", "/api/v2/usage"],
    ["post", "/api/text/:model"],
    ["post", "/api/audio/full"],
    ["post", "/api/tts"],
    ["get", "/api/voices"],
  ];

  it("when the app's route table is read, then every /api route is one the next test calls without a key", () => {
    const routes = (
      gw.app.router as unknown as { stack: { route?: { path: unknown; methods: Record<string, boolean> } }[] }
    ).stack
      .flatMap((layer) =>
        layer.route ? Object.keys(layer.route.methods).map((method) => [method, layer.route!.path]) : [],
      )
      .filter(([, path]) => String(path).startsWith("/api"));
    expect(routes.sort()).toEqual([...API_ENDPOINTS].sort());
  });

  it.each(API_ENDPOINTS)("when %s %s is called without a key, then it is 401 UNAUTHORIZED", async (method, path) => {
    const url = path.replace(":id", "abc").replace(":model", "default");
    const res = await (request(gw.app) as unknown as Record<string, (url: string) => request.Test>)[method]!(url)
      .set("X-Forwarded-For", nextAddress())
      .send({});
    expect(res.status).toBe(401);
    expectEnvelope(res.body, "UNAUTHORIZED");
  });

  it("when a key is revoked, then it is served from the gateway's key cache until that entry's time is up, then 401 saying so", async () => {
    // The gateway's own app, its key cache on a clock the test moves (KEY_CACHE_TTL_MS 300).
    let now = 1_000_000;
    const app = buildApp({ ...gw.deps, keyLookup: new CachedApiKeys(gw.deps.apiKeys, 300, 10_000, () => now) });
    const secret = await gw.createKey();
    const poll = () => request(app).get("/api/v2/status/x").auth(secret, { type: "bearer" });
    expect((await poll()).status).toBe(404);
    const [record] = (await gw.deps.apiKeys.list()).filter((k) => !k.revoked).slice(-1);
    await gw.deps.apiKeys.revokeById(record!.id);
    now += 299;
    expect((await poll()).status).toBe(404); // still the cached key: a revocation takes up to the cache time
    now += 2;
    const res = await poll();
    expect(res.status).toBe(401);
    expect(errorOf(res).message).toMatch(/revoked/);
  });

  it("when a key lacks the model's scope, then text on that model is 403 and on its own model 200", async () => {
    const secret = await gw.createKey({ scopes: ["text:default"] });
    const denied = await request(gw.app)
      .post("/api/text/Witch")
      .auth(secret, { type: "bearer" })
      .send(defaultRequest());
    expect(denied.status).toBe(403);
    expectEnvelope(denied.body, "FORBIDDEN");
    const allowed = await request(gw.app)
      .post("/api/text/default")
      .auth(secret, { type: "bearer" })
      .send(defaultRequest());
    expect(allowed.status).toBe(200);
  });

  it("when a key lacks the tts scope, then both speech paths are 403", async () => {
    const secret = await gw.createKey({ scopes: ["text:*"] });
    for (const path of ["/api/audio/full", "/api/tts"]) {
      const res = await request(gw.app).post(path).auth(secret, { type: "bearer" }).send({ text: "hello" });
      expect(res.status).toBe(403);
      expectEnvelope(res.body, "FORBIDDEN");
    }
  });

  it("when one address keeps failing authentication, then past the budget it gets 429 with Retry-After", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await request(gw.app)
        .get("/api/v2/status/x")
        .set("Authorization", "Bearer ck_wrong")
        .set("X-Forwarded-For", "203.0.113.7");
      statuses.push(res.status);
      if (res.status === 429) {
        expectEnvelope(res.body, "RATE_LIMITED");
        expect(Number(res.headers["retry-after"])).toBeGreaterThan(0);
      }
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
  });

  it("when the failing address is another one, then its budget is separate", async () => {
    const res = await request(gw.app)
      .get("/api/v2/status/x")
      .set("Authorization", "Bearer ck_wrong")
      .set("X-Forwarded-For", "198.51.100.1");
    expect(res.status).toBe(401);
  });

  it("when a key is stored, then Redis holds only its hash, never the secret", async () => {
    const secret = await gw.createKey();
    const keys = await gw.deps.redis.keys(`${gw.prefix}:*`);
    for (const key of keys) {
      expect(key).not.toContain(secret);
      const type = await gw.deps.redis.type(key);
      const dump = type === "hash" ? JSON.stringify(await gw.deps.redis.hgetall(key)) : "";
      expect(dump).not.toContain(secret);
    }
  });
});
