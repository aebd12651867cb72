import { createWorkerRedis, type RedisClient } from "@chorus/platform/redis";
import { UsageMeter, type UsageReport } from "@chorus/platform/usage";
import request from "supertest";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { testLogger } from "../../../test-support/logger.js";
import { TEST_REDIS, uniquePrefix } from "../../../test-support/redis.js";

const ADMIN_TOKEN = "admin-token-for-the-usage-route-test-0123456789";
const DAY1 = Date.parse("2026-05-10T12:00:00.000Z");
const DAY2 = Date.parse("2026-05-11T08:00:00.000Z");
const MAY = "from=2026-05-01&to=2026-05-31";

let gw: TestGateway;
let connection: RedisClient;
let alice: { id: string; key: string };
let bob: { id: string; key: string };

beforeAll(async () => {
  gw = await startTestGateway(uniquePrefix("usage-route"), { ADMIN_TOKEN });
  connection = createWorkerRedis(TEST_REDIS);
  alice = await gw.createKeyWithSecrets();
  bob = await gw.createKeyWithSecrets();
  // What workers would meter as jobs end.
  const meter = new UsageMeter(connection, gw.deps.keys, testLogger("usage"));
  const text = { end: "completed", promptTokens: 20, cachedPromptTokens: 5, completionTokens: 9 } as const;
  await meter.record({ jobId: "a1", keyId: alice.id, model: "default", at: DAY1, ...text });
  await meter.record({ jobId: "a2", keyId: alice.id, model: "Witch", at: DAY2, ...text });
  await meter.record({ jobId: "a3", keyId: alice.id, model: "Witch", at: DAY2, end: "error" });
  await meter.record({ jobId: "b1", keyId: bob.id, model: "espeak-ng", at: DAY2, end: "completed", characters: 12 });
});
afterAll(async () => {
  connection.disconnect();
  await gw.close();
});

const own = (key: string, query: string) => request(gw.app).get(`/api/v2/usage?${query}`).auth(key, { type: "bearer" });
const admin = (query: string) => request(gw.app).get(`/admin/usage?${query}`).auth(ADMIN_TOKEN, { type: "bearer" });

describe("GET /api/v2/usage", () => {
  it("when a key asks by day, then it gets its own days with something used, and the total", async () => {
    const res = await own(alice.key, MAY);
    expect(res.status).toBe(200);
    const report = res.body as UsageReport;
    expect(report).toMatchObject({ keyId: alice.id, from: "2026-05-01", to: "2026-05-31", groupBy: "day" });
    expect(report.buckets.map((b) => ["day" in b && b.day, b.requests, b.completionTokens])).toEqual([
      ["2026-05-10", { completed: 1, error: 0, cancelled: 0 }, 9],
      ["2026-05-11", { completed: 1, error: 1, cancelled: 0 }, 9],
    ]);
    expect(report.total).toEqual({
      requests: { completed: 2, error: 1, cancelled: 0 },
      promptTokens: 40,
      cachedPromptTokens: 10,
      completionTokens: 18,
      characters: 0,
      audioSeconds: 0,
    });
  });

  it("when a key asks by model, then each model has its bucket; another key sees only its own", async () => {
    const report = (await own(alice.key, `${MAY}&groupBy=model`)).body as UsageReport;
    expect(report.buckets.map((b) => ["model" in b && b.model, b.requests.completed, b.requests.error])).toEqual([
      ["default", 1, 0],
      ["Witch", 1, 1],
    ]);
    const bobs = (await own(bob.key, `${MAY}&groupBy=model`)).body as UsageReport;
    expect(bobs.buckets.map((b) => "model" in b && b.model)).toEqual(["espeak-ng"]);
    expect(bobs.total.characters).toBe(12);
  });

  it("when the range is left out, then it is the 30 days ending today", async () => {
    const res = await own(alice.key, "");
    expect(res.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    const from = new Date(Date.now() - 29 * 24 * 3600 * 1000).toISOString().slice(0, 10);
    expect(res.body).toMatchObject({ from, to: today, groupBy: "day" });
  });

  it.each([
    ["groupBy=week", "groupBy"],
    ["from=2026-05-12&to=2026-05-11", "from"],
    ["from=2025-01-01&to=2026-02-05", "from"],
    ["from=2026-02-30&to=2026-03-01", "from"],
    ["from=2026-05-01&to=20260531", "to"],
    ["from=2026-05-01&to=2026-05-31&limit=3", "limit"],
  ])("when the query is %s, then it is 400 INVALID_PARAMETER naming %s", async (query, parameter) => {
    const res = await own(alice.key, query);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      status: "error",
      error: { code: "INVALID_PARAMETER", details: { parameter } },
    });
  });

  it("when the range spans exactly 400 days, then it is answered", async () => {
    expect((await own(alice.key, "from=2025-01-01&to=2026-02-04")).status).toBe(200);
  });

  it("when no key is sent, then it is 401; the admin token is no key here", async () => {
    expect((await request(gw.app).get("/api/v2/usage")).status).toBe(401);
    expect((await request(gw.app).get("/api/v2/usage").auth(ADMIN_TOKEN, { type: "bearer" })).status).toBe(401);
  });

  it("when a key has spent its status budget, then its usage is 429 RATE_LIMITED like its polls", async () => {
    const key = await gw.createKey({ limits: { status: 2 } });
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await own(key, MAY));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 429]);
    expect(answers[0]!.headers["x-ratelimit-remaining"]).toBe("1");
    expect(answers[2]!.body).toMatchObject({ status: "error", error: { code: "RATE_LIMITED" } });
  });
});

describe("GET /admin/usage", () => {
  it("when asked without a key filter, then every key has its report; with `key`, only that key's", async () => {
    const all = await admin(`${MAY}&groupBy=model`);
    expect(all.status).toBe(200);
    const reports = (all.body as { keys: UsageReport[] }).keys;
    const ids = (await gw.deps.apiKeys.list()).map((record) => record.id);
    expect(reports.map((r) => r.keyId).sort()).toEqual(ids.sort());
    const used = reports.filter((r) => r.buckets.length > 0).map((r) => r.keyId);
    expect(used.sort()).toEqual([alice.id, bob.id].sort());
    const one = await admin(`${MAY}&key=${bob.id}`);
    expect((one.body as { keys: UsageReport[] }).keys.map((r) => r.keyId)).toEqual([bob.id]);
    expect((await admin(`${MAY}&key=nope`)).status).toBe(404);
    expect((await request(gw.app).get("/admin/usage").auth(alice.key, { type: "bearer" })).status).toBe(401);
  });

  it("when asked with Accept: text/csv, then it is CSV: a header, then a row per key and bucket", async () => {
    const res = await admin(`${MAY}&key=${alice.id}`).set("Accept", "text/csv");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/csv/);
    expect(res.text.split("\r\n")).toEqual([
      "key,day,completed,error,cancelled,promptTokens,cachedPromptTokens,completionTokens,characters,audioSeconds",
      `${alice.id},2026-05-10,1,0,0,20,5,9,0,0`,
      `${alice.id},2026-05-11,1,1,0,20,5,9,0,0`,
      "",
    ]);
  });

  it("when the query is bad, then it is 400 naming the field, as on the key's own path", async () => {
    const res = await admin("groupBy=hour");
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code: "INVALID_PARAMETER", details: { parameter: "groupBy" } } });
  });
});
