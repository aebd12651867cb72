import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import { setTimeout as sleep } from "node:timers/promises";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { errorOf } from "../../../test-support/response-body.js";

const ADMIN_TOKEN = "admin-token-for-tests-0123456789abcdef";

interface ShownKey {
  id: string;
  name: string;
  scopes: string[];
  limits: Record<string, number>;
  expiresAt: string | null;
  lastUsedAt?: string | null;
  key?: string;
  previousValidUntil?: string | null;
}

describe("key lifecycle: expiry, rotation with an overlap, last use", () => {
  let gw: TestGateway;
  let client = 0;
  beforeAll(async () => {
    // A cache far longer than any wait here: a cached key must still not outlive its expiry or overlap.
    gw = await startTestGateway(uniquePrefix("key-life"), { ADMIN_TOKEN, KEY_CACHE_TTL_MS: "60000" });
  });
  afterAll(() => gw.close());

  const admin = (method: "get" | "post" | "patch", path: string, body?: object) => {
    const call = request(gw.app)[method](path).auth(ADMIN_TOKEN, { type: "bearer" });
    return body === undefined ? call : call.send(body);
  };
  const create = async (body: object) => (await admin("post", "/admin/keys", body)).body as ShownKey & { key: string };
  /** The status a request with `secret` gets (from an address of its own: failures are budgeted per address). */
  const statusWith = async (secret: string) => {
    const res = await request(gw.app)
      .get("/api/voices")
      .auth(secret, { type: "bearer" })
      .set("X-Forwarded-For", `10.23.0.${++client}`);
    return { status: res.status, message: res.status === 401 ? errorOf(res).message : "" };
  };
  const soon = (ms: number) => new Date(Date.now() + ms).toISOString();

  describe("expiry", () => {
    it.each([
      ["in the past", "2020-01-01T00:00:00Z", "in the future"],
      ["malformed", "next tuesday", "date-time"],
      ["not a string", 42, "string"],
    ])("when expiresAt is %s, then create and update are 400 naming expiresAt", async (_, expiresAt, says) => {
      const created = await admin("post", "/admin/keys", { name: `bad-expiry-${String(expiresAt)}`, expiresAt });
      expect(created.status).toBe(400);
      expect(created.body).toMatchObject({ error: { code: "INVALID_PARAMETER", details: { parameter: "expiresAt" } } });
      expect(errorOf(created).message).toContain(says);
      const key = await create({ name: `patched-expiry-${String(expiresAt)}` });
      const patched = await admin("patch", `/admin/keys/${key.id}`, { expiresAt });
      expect(patched.status).toBe(400);
      expect(patched.body).toMatchObject({ error: { code: "INVALID_PARAMETER", details: { parameter: "expiresAt" } } });
    });

    it("when a cached key's expiry passes, then it gets 401 saying it expired (the cache does not outlive it)", async () => {
      const expiresAt = soon(1500);
      const key = await create({ name: "expiring", expiresAt });
      expect(key.expiresAt).toBe(expiresAt);
      expect((await statusWith(key.key)).status).toBe(200); // now in this gateway's key cache
      await sleep(Date.parse(expiresAt) - Date.now() + 50);
      const after = await statusWith(key.key);
      expect(after).toEqual({ status: 401, message: `the API key expired at ${expiresAt}` });
      const res = await request(gw.app)
        .get("/api/voices")
        .auth(key.key, { type: "bearer" })
        .set("X-Forwarded-For", "10.23.1.1");
      expect(res.body).toMatchObject({
        error: { code: "UNAUTHORIZED", details: { reason: "expired" } },
        status: "error",
      });
    });

    it("when an update sets, then drops an expiry, then the listing shows it and the key works again", async () => {
      const key = await create({ name: "renewed", expiresAt: soon(1000) });
      await sleep(1100);
      expect((await statusWith(key.key)).status).toBe(401);
      const later = soon(3_600_000);
      expect((await admin("patch", `/admin/keys/${key.id}`, { expiresAt: later })).body).toMatchObject({
        expiresAt: later,
      });
      expect((await statusWith(key.key)).status).toBe(200);
      expect((await admin("patch", `/admin/keys/${key.id}`, { expiresAt: null })).body).toMatchObject({
        expiresAt: null,
      });
      const listed = ((await admin("get", "/admin/keys")).body as { data: ShownKey[] }).data;
      expect(listed.find((k) => k.id === key.id)?.expiresAt).toBeNull();
    });
  });

  describe("rotation", () => {
    it("when a key is rotated without an overlap, then only the new secret works, and id, scopes, limits and webhook secret stay", async () => {
      const key = await create({ name: "rotated-now", scopes: ["tts"], limits: { text: 7 } });
      expect((await statusWith(key.key)).status).toBe(200); // now in this gateway's key cache
      const webhookSecretsKey = gw.deps.keys.apiKeyWebhookSecrets(key.id);
      const webhookBefore = await gw.deps.redis.hgetall(webhookSecretsKey);
      const res = await admin("post", `/admin/keys/${key.id}/rotate`, {});
      expect(res.status).toBe(200);
      expect(res.headers["cache-control"]).toBe("no-store");
      const rotated = res.body as ShownKey & { key: string };
      expect(rotated).toMatchObject({ id: key.id, scopes: ["tts"], limits: { text: 7 }, previousValidUntil: null });
      expect(rotated.key).toMatch(/^ck_\S{43}$/);
      expect(rotated.key).not.toBe(key.key);
      expect((await statusWith(key.key)).status).toBe(401);
      expect((await statusWith(rotated.key)).status).toBe(200);
      expect(await gw.deps.redis.hgetall(webhookSecretsKey)).toEqual(webhookBefore);
      expect(await gw.deps.apiKeys.get(key.id)).toMatchObject({ id: key.id, name: "rotated-now", limits: { text: 7 } });
    });

    it("when a key is rotated with an overlap, then the old secret works until it ends, then gets 401", async () => {
      const key = await create({ name: "rotated-overlap" });
      expect((await statusWith(key.key)).status).toBe(200);
      const rotated = (await admin("post", `/admin/keys/${key.id}/rotate`, { overlapSeconds: 1 })).body as ShownKey & {
        key: string;
      };
      const until = Date.parse(rotated.previousValidUntil ?? "");
      expect(until).toBeGreaterThan(Date.now());
      expect((await statusWith(key.key)).status).toBe(200);
      expect((await statusWith(rotated.key)).status).toBe(200);
      await sleep(until - Date.now() + 50);
      expect((await statusWith(key.key)).status).toBe(401);
      expect((await statusWith(rotated.key)).status).toBe(200);
    });

    it("when a key is rotated twice within an overlap, then only the newest old secret still works", async () => {
      const first = await create({ name: "rotated-twice" });
      const rotate = async () =>
        (
          (await admin("post", `/admin/keys/${first.id}/rotate`, { overlapSeconds: 3600 })).body as ShownKey & {
            key: string;
          }
        ).key;
      const second = await rotate();
      expect((await statusWith(first.key)).status).toBe(200);
      const third = await rotate();
      expect(await Promise.all([first.key, second, third].map(async (k) => (await statusWith(k)).status))).toEqual([
        401, 200, 200,
      ]);
      const listed = ((await admin("get", "/admin/keys")).body as { data: ShownKey[] }).data;
      expect(listed.filter((k) => k.name === "rotated-twice").map((k) => k.id)).toEqual([first.id]);
      expect(
        (await request(gw.app).delete(`/admin/keys/${first.id}`).auth(ADMIN_TOKEN, { type: "bearer" })).status,
      ).toBe(204);
      expect(await Promise.all([second, third].map(async (k) => (await statusWith(k)).status))).toEqual([401, 401]);
    });

    it.each([
      ["a negative overlap", { overlapSeconds: -1 }],
      ["a text overlap", { overlapSeconds: "1h" }],
      ["an overlap over 30 days", { overlapSeconds: 30 * 86400 + 1 }],
      ["an unknown field", { overlap: 60 }],
    ])("when the rotation has %s, then it is 400 in the envelope and the key keeps its secret", async (_, body) => {
      const key = await create({ name: `bad-rotation-${JSON.stringify(body)}` });
      const res = await admin("post", `/admin/keys/${key.id}/rotate`, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: { code: "INVALID_PARAMETER" }, status: "error" });
      expect((await statusWith(key.key)).status).toBe(200);
    });

    it("when the key is unknown or revoked, then rotating it is 404 or 409", async () => {
      expect((await admin("post", "/admin/keys/key_0000000000000000/rotate", {})).status).toBe(404);
      const key = await create({ name: "rotated-revoked" });
      await request(gw.app).delete(`/admin/keys/${key.id}`).auth(ADMIN_TOKEN, { type: "bearer" });
      const res = await admin("post", `/admin/keys/${key.id}/rotate`, {});
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ error: { code: "CONFLICT" } });
    });
  });

  describe("last use", () => {
    it("when a key authenticates, then the listing shows when (null before)", async () => {
      const key = await create({ name: "used" });
      const lastUsed = async () =>
        ((await admin("get", "/admin/keys")).body as { data: ShownKey[] }).data.find((k) => k.id === key.id)
          ?.lastUsedAt;
      expect(await lastUsed()).toBeNull();
      const before = Date.now();
      expect((await statusWith(key.key)).status).toBe(200);
      let shown = await lastUsed();
      for (let tries = 0; !shown && tries < 50; tries++) shown = (await sleep(20), await lastUsed());
      expect(Date.parse(shown ?? "")).toBeGreaterThanOrEqual(before - 1);
    });
  });
});
