import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { MAX_API_KEY_NAME_CHARS, type ErrorEnvelope } from "@chorus/contracts";
import type { ApiKeyRecord, DailyUsage } from "@chorus/platform/api-keys";
import request from "supertest";
import { defaultRequest } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { errorOf } from "../../../test-support/response-body.js";

const ADMIN_TOKEN = "admin-token-for-tests-0123456789abcdef";
let client = 0;
const nextAddress = () => `10.17.0.${++client}`;

/** POST /admin/keys's answer: the new key, with its secret (shown this once). */
type CreatedKey = Omit<ApiKeyRecord, "revoked"> & { key: string };
/** GET /admin/keys's answer. */
interface KeyList {
  data: ApiKeyRecord[];
}
/** GET /admin/keys/{id}/usage's answer. */
interface KeyUsage {
  id: string;
  days: DailyUsage[];
  total: Omit<DailyUsage, "date">;
}

function expectEnvelope(body: unknown, code: string) {
  expect(body).toMatchObject({
    error: { code, message: expect.any(String) },
    status: "error",
    timestamp: expect.any(String),
  });
  expect(Object.keys(body as ErrorEnvelope).sort()).toEqual(["error", "status", "timestamp"]);
}

describe("admin routes without ADMIN_TOKEN", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(uniquePrefix("admin-off"));
  });
  afterAll(() => gw.close());

  it.each([
    ["get", "/admin/keys"],
    ["post", "/admin/keys"],
    ["get", "/admin/queues"],
  ])("when %s %s is asked with an API key, then it is the 404 an unknown path gets", async (method, path) => {
    const key = await gw.createKey();
    const call = (url: string) =>
      (request(gw.app) as unknown as Record<string, (url: string) => request.Test>)[method]!(url).auth(key, {
        type: "bearer",
      });
    const [admin, unknown] = [await call(path), await call("/no/such/path")];
    expect(admin.status).toBe(404);
    expectEnvelope(admin.body, "NOT_FOUND");
    expect(errorOf(admin).message).toBe(errorOf(unknown).message.replace("/no/such/path", path));
  });

  it("when the admin token is sent anyway, then it opens nothing (401, as any unknown key)", async () => {
    const res = await request(gw.app)
      .get("/admin/keys")
      .auth(ADMIN_TOKEN, { type: "bearer" })
      .set("X-Forwarded-For", nextAddress());
    expect(res.status).toBe(401);
  });
});

describe("admin API with ADMIN_TOKEN", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(uniquePrefix("admin"), { ADMIN_TOKEN, AUTH_FAILURE_LIMIT: "3" });
  });
  afterAll(() => gw.close());

  const admin = () => ({
    get: (path: string) => request(gw.app).get(path).auth(ADMIN_TOKEN, { type: "bearer" }),
    post: (path: string, body: unknown) =>
      request(gw.app)
        .post(path)
        .auth(ADMIN_TOKEN, { type: "bearer" })
        .send(body as object),
    delete: (path: string) => request(gw.app).delete(path).auth(ADMIN_TOKEN, { type: "bearer" }),
    patch: (path: string, body: unknown) =>
      request(gw.app)
        .patch(path)
        .auth(ADMIN_TOKEN, { type: "bearer" })
        .send(body as object),
  });
  /** The keys GET /admin/keys lists. */
  const listedKeys = async () => ((await admin().get("/admin/keys")).body as KeyList).data;

  it.each([
    ["no Authorization header", undefined],
    ["a wrong token", `Bearer ${ADMIN_TOKEN}x`],
    ["a prefix of the token", `Bearer ${ADMIN_TOKEN.slice(0, 32)}`],
    ["an API key", "Bearer ck_not-an-admin-token"],
  ])("when an admin route is called with %s, then it is 401 UNAUTHORIZED", async (_label, header) => {
    for (const [method, path] of [
      ["get", "/admin/keys"],
      ["post", "/admin/keys"],
      ["delete", "/admin/keys/key_0000000000000000"],
      ["patch", "/admin/keys/key_0000000000000000"],
      ["get", "/admin/keys/key_0000000000000000/usage"],
    ] as const) {
      const req = request(gw.app)[method](path).set("X-Forwarded-For", nextAddress());
      const res = await (header ? req.set("Authorization", header) : req);
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 401 });
      expectEnvelope(res.body, "UNAUTHORIZED");
    }
  });

  it("when one address keeps failing, then it is 429 past the failed-authentication budget, even with the right token", async () => {
    const address = nextAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push(
        (await request(gw.app).get("/admin/keys").auth("wrong", { type: "bearer" }).set("X-Forwarded-For", address))
          .status,
      );
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect(
      (await request(gw.app).get("/admin/keys").auth(ADMIN_TOKEN, { type: "bearer" }).set("X-Forwarded-For", address))
        .status,
    ).toBe(200);
  });

  it("when a key is created, then it works on the public API, is listed without its secret, and once revoked gets 401", async () => {
    const created = await admin().post("/admin/keys", {
      name: "partner-a",
      scopes: ["text:default"],
      limits: { text: 7, inflight: 5, streams: 3 },
    });
    expect(created.status).toBe(201);
    expect(created.headers["cache-control"]).toBe("no-store");
    expect(created.body).toEqual({
      id: expect.stringMatching(/^key_[0-9a-f]{16}$/),
      key: expect.stringMatching(/^ck_/),
      webhookSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      name: "partner-a",
      scopes: ["text:default"],
      limits: { text: 7, inflight: 5, streams: 3 },
      webhookHosts: null,
      webhookSigning: "own",
      createdAt: expect.any(String),
      expiresAt: null,
      priority: "normal",
      revoked: false,
    });
    const { id, key, createdAt } = created.body as CreatedKey;

    const submitted = await request(gw.app)
      .post("/api/text/default")
      .auth(key, { type: "bearer" })
      .send(defaultRequest());
    expect(submitted.status).toBe(200);
    expect(submitted.headers["x-ratelimit-limit"]).toBe("7");
    expect((await request(gw.app).post("/api/tts").auth(key, { type: "bearer" }).send({ text: "hi" })).status).toBe(
      403,
    );

    const listed = await admin().get("/admin/keys");
    expect(listed.status).toBe(200);
    const entry = (listed.body as KeyList).data.find((k) => k.id === id);
    expect(entry).toEqual({
      id,
      name: "partner-a",
      scopes: ["text:default"],
      limits: { text: 7, inflight: 5, streams: 3 },
      webhookHosts: null,
      webhookSigning: "own",
      createdAt,
      expiresAt: null,
      priority: "normal",
      revoked: false,
      lastUsedAt: expect.any(String), // it was used just above
    });
    expect(JSON.stringify(listed.body)).not.toContain(key);
    expect(JSON.stringify(listed.body)).not.toContain((created.body as { webhookSecret: string }).webhookSecret);

    const revoked = await admin().delete(`/admin/keys/${id}`);
    expect(revoked.status).toBe(204);
    expect(revoked.text).toBe("");
    const refused = await request(gw.app)
      .post("/api/text/default")
      .auth(key, { type: "bearer" })
      .set("X-Forwarded-For", nextAddress())
      .send(defaultRequest());
    expect(refused.status).toBe(401);
    expect(errorOf(refused).message).toBe("the API key has been revoked");
    expect((await listedKeys()).find((k) => k.id === id)?.revoked).toBe(true);
  });

  it("when a key's limits and scopes are patched, then the same secret is held to them at once, and null gives back the deployment's", async () => {
    const created = (await admin().post("/admin/keys", { name: "patched", limits: { text: 50 } })).body as CreatedKey;
    const submit = (model = "default") =>
      request(gw.app).post(`/api/text/${model}`).auth(created.key, { type: "bearer" }).send(defaultRequest());
    expect((await submit()).headers["x-ratelimit-limit"]).toBe("50");

    const patched = await admin().patch(`/admin/keys/${created.id}`, {
      scopes: ["text:default"],
      limits: { text: 2, inflight: 9 },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({
      ...created,
      key: undefined,
      webhookSecret: undefined,
      scopes: ["text:default"],
      limits: { text: 2, inflight: 9 },
      revoked: false,
    });
    const limited = await submit();
    expect(limited.status).toBe(200);
    expect(limited.headers["x-ratelimit-limit"]).toBe("2");
    expect((await submit()).status).toBe(429);
    expect((await submit("Witch")).status).toBe(403);

    const back = await admin().patch(`/admin/keys/${created.id}`, { limits: { text: null } });
    expect(back.body).toMatchObject({ limits: { inflight: 9 } });
    expect((back.body as ApiKeyRecord).limits).not.toHaveProperty("text");
    expect((await submit()).headers["x-ratelimit-limit"]).toBe(String(gw.config.RATE_LIMIT_TEXT));
    expect((await listedKeys()).find((k) => k.id === created.id)).toMatchObject({ limits: { inflight: 9 } });
  });

  it.each([
    ["an empty change", {}, "body"],
    ["an unknown field", { name: "renamed" }, "name"],
    ["a limit of 0", { limits: { text: 0 } }, "limits.text"],
    ["an unknown scope", { scopes: ["text:Nobody"] }, "scopes[0]"],
  ])("when a patch holds %s, then it is 400 naming it and the key is unchanged", async (_label, body, parameter) => {
    const created = (await admin().post("/admin/keys", { name: `bad-patch-${parameter}`, limits: { text: 5 } }))
      .body as CreatedKey;
    const res = await admin().patch(`/admin/keys/${created.id}`, body);
    expect(res.status).toBe(400);
    expectEnvelope(res.body, "INVALID_PARAMETER");
    expect(errorOf(res).details?.parameter).toBe(parameter);
    expect((await listedKeys()).find((k) => k.id === created.id)).toMatchObject({ limits: { text: 5 } });
  });

  it("when a patch names an unknown id, then it is 404; a revoked key, 409", async () => {
    expect((await admin().patch("/admin/keys/key_0000000000000000", { limits: { text: 3 } })).status).toBe(404);
    const created = (await admin().post("/admin/keys", { name: "patched-revoked" })).body as CreatedKey;
    await admin().delete(`/admin/keys/${created.id}`);
    const res = await admin().patch(`/admin/keys/${created.id}`, { limits: { text: 3 } });
    expect(res.status).toBe(409);
    expectEnvelope(res.body, "CONFLICT");
  });

  it("when a name is taken, then creating it again is 409 CONFLICT; with rotate, the old key is revoked", async () => {
    const first = (await admin().post("/admin/keys", { name: "rotating" })).body as CreatedKey;
    expect(first.scopes).toEqual(["*"]);
    expect(first.limits).toEqual({});
    const again = await admin().post("/admin/keys", { name: "rotating" });
    expect(again.status).toBe(409);
    expectEnvelope(again.body, "CONFLICT");
    expect(errorOf(again).message).toContain('"rotate": true');
    const rotated = await admin().post("/admin/keys", { name: "rotating", rotate: true });
    expect(rotated.status).toBe(201);
    expect(
      (
        await request(gw.app)
          .get("/api/voices")
          .auth(first.key, { type: "bearer" })
          .set("X-Forwarded-For", nextAddress())
      ).status,
    ).toBe(401);
    expect(
      (
        await request(gw.app)
          .get("/api/voices")
          .auth((rotated.body as CreatedKey).key, { type: "bearer" })
      ).status,
    ).toBe(200);
  });

  it.each([
    ["name", {}],
    ["name", { name: "" }],
    ["name", { name: "   " }],
    ["name", { name: "x".repeat(MAX_API_KEY_NAME_CHARS + 1) }],
    ["name", { name: 12 }],
    ["scopes", { name: "n", scopes: [] }],
    ["scopes[0]", { name: "n", scopes: ["text:nope"] }],
    ["scopes", { name: "n", scopes: "*" }],
    ["limits.text", { name: "n", limits: { text: 0 } }],
    ["limits.tts", { name: "n", limits: { tts: 1.5 } }],
    ["limits.speech", { name: "n", limits: { speech: 3 } }],
    ["limits.inflight", { name: "n", limits: { inflight: 0 } }],
    ["limits.streams", { name: "n", limits: { streams: 2.5 } }],
    ["owner", { name: "n", owner: "me" }],
    ["rotate", { name: "n", rotate: "yes" }],
    ["body", []],
  ])(
    "when the body's %s is wrong, then it is 400 INVALID_PARAMETER naming it, and no key is made",
    async (parameter, body) => {
      const before = (await listedKeys()).length;
      const res = await admin().post("/admin/keys", body);
      expect(res.status).toBe(400);
      expect(errorOf(res).code).toBe("INVALID_PARAMETER");
      expect(errorOf(res).details?.parameter).toBe(parameter);
      expect(await listedKeys()).toHaveLength(before);
    },
  );

  it("when the body is not JSON, then it is 415 or 400 as on the public API", async () => {
    expect((await admin().post("/admin/keys", "name=x").type("form")).status).toBe(415);
    expect(
      (await request(gw.app).post("/admin/keys").auth(ADMIN_TOKEN, { type: "bearer" }).type("json").send("{")).status,
    ).toBe(400);
  });

  it("when an id is unknown, then revoking it and reading its usage are 404 NOT_FOUND", async () => {
    for (const res of [
      await admin().delete("/admin/keys/key_ffffffffffffffff"),
      await admin().get("/admin/keys/key_ffffffffffffffff/usage"),
    ]) {
      expect(res.status).toBe(404);
      expectEnvelope(res.body, "NOT_FOUND");
    }
  });

  it("when key B is named like key A's id, then DELETE of A's id revokes A only, and B still authenticates", async () => {
    const a = (await admin().post("/admin/keys", { name: "named-key-a" })).body as { id: string; key: string };
    const b = (await admin().post("/admin/keys", { name: a.id })).body as { id: string; key: string };
    expect((await admin().delete(`/admin/keys/${a.id}`)).status).toBe(204);
    const states = Object.fromEntries((await listedKeys()).map((k) => [k.id, k.revoked]));
    expect([states[a.id], states[b.id]]).toEqual([true, false]);
    expect((await request(gw.app).get("/api/voices").auth(b.key, { type: "bearer" })).status).toBe(200);
    expect(
      (await request(gw.app).get("/api/voices").auth(a.key, { type: "bearer" }).set("X-Forwarded-For", nextAddress()))
        .status,
    ).toBe(401);
  });

  it("when the path holds a key's name rather than an id, then it is 404 NOT_FOUND and that key stays active", async () => {
    const named = (await admin().post("/admin/keys", { name: "key_0123456789abcdef" })).body as {
      id: string;
      key: string;
    };
    const res = await admin().delete("/admin/keys/key_0123456789abcdef");
    expect(res.status).toBe(404);
    expectEnvelope(res.body, "NOT_FOUND");
    expect((await listedKeys()).find((k) => k.id === named.id)?.revoked).toBe(false);
    expect((await request(gw.app).get("/api/voices").auth(named.key, { type: "bearer" })).status).toBe(200);
  });

  it("when a key has done nothing, then its usage is 30 UTC days of zeros, today last", async () => {
    const { id } = (await admin().post("/admin/keys", { name: "idle" })).body as { id: string };
    const res = await admin().get(`/admin/keys/${id}/usage`);
    expect(res.status).toBe(200);
    const { days, total } = res.body as KeyUsage;
    expect(days).toHaveLength(30);
    expect(days[29]?.date).toBe(new Date().toISOString().slice(0, 10));
    const zero = { requests: { text: 0, tts: 0, status: 0 }, tokens: 0, promptTokens: 0, speechSeconds: 0 };
    expect(days[0]).toEqual({ date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), ...zero });
    expect(total).toEqual(zero);
  });

  it("when a key polls and is rate limited, then only the admitted requests are counted", async () => {
    const { id, key } = (await admin().post("/admin/keys", { name: "poller", limits: { status: 2 } })).body as {
      id: string;
      key: string;
    };
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await request(gw.app).get("/api/v2/status/no-such-request").auth(key, { type: "bearer" })).status);
    expect(statuses).toEqual([404, 404, 429]);
    // Counted without being waited for, but on the connection the usage is then read on: Redis runs them in order.
    const usage = ((await admin().get(`/admin/keys/${id}/usage`)).body as KeyUsage).total;
    expect(usage.requests).toEqual({ text: 0, tts: 0, status: 2 });
  });
});

describe("queues dashboard", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(uniquePrefix("admin-board"), { ADMIN_TOKEN });
  });
  afterAll(() => gw.close());

  it("when the page is asked with the token as the Basic password, then it is served with every asset from the gateway", async () => {
    const page = await request(gw.app).get("/admin/queues").auth("admin", ADMIN_TOKEN);
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(page.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(page.text).toContain("Chorus queues");
    expect(page.text).not.toMatch(/(src|href)="(https?:)?\/\//);
    const assets = [...page.text.matchAll(/(?:src|href)="(static\/[^"]+)"/g)].map((m) => m[1] as string);
    expect(assets.length).toBeGreaterThan(2);
    for (const asset of assets)
      expect((await request(gw.app).get(`/admin/queues/${asset}`).auth("admin", ADMIN_TOKEN)).status).toBe(200);
  });

  it("when its API is asked with the Bearer token, then it lists the text, speech and webhook-delivery queues, read-only", async () => {
    const res = await request(gw.app).get("/admin/queues/api/queues").auth(ADMIN_TOKEN, { type: "bearer" });
    expect(res.status).toBe(200);
    const { queues } = res.body as { queues: { name: string; readOnlyMode: boolean }[] };
    expect(queues.map((q) => q.name).sort()).toEqual(["speech-synthesis", "text-generation", "webhook-delivery"]);
    expect(queues.every((q) => q.readOnlyMode)).toBe(true);
  });

  it("when an action is attempted, then it is 405, whatever bull-board would do", async () => {
    const res = await request(gw.app)
      .put("/admin/queues/api/queues/text-generation/pause")
      .auth(ADMIN_TOKEN, { type: "bearer" });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe("GET, HEAD");
  });

  it.each([
    ["no credentials", undefined],
    ["a wrong Basic password", `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}x`).toString("base64")}`],
  ])(
    "when the page is asked with %s, then it is 401 with a Basic challenge for the browser",
    async (_label, header) => {
      const req = request(gw.app).get("/admin/queues").set("X-Forwarded-For", nextAddress());
      const res = await (header ? req.set("Authorization", header) : req);
      expect(res.status).toBe(401);
      expect(res.headers["www-authenticate"]).toMatch(/^Basic realm=/);
      expectEnvelope(res.body, "UNAUTHORIZED");
    },
  );

  it("when the admin API is asked with the token as a Basic password, then it is 401: only the dashboard takes Basic", async () => {
    expect(
      (await request(gw.app).get("/admin/keys").auth("admin", ADMIN_TOKEN).set("X-Forwarded-For", nextAddress()))
        .status,
    ).toBe(401);
  });
});
