import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { ErrorEnvelope, OpenAiErrorEnvelope } from "@chorus/contracts";
import { nextUtcDay, nextUtcMonth, utcDayOf } from "@chorus/platform/budgets";
import request from "supertest";
import { defaultRequest } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { errorOf, submittedId } from "../../../test-support/response-body.js";

/**
 * Usage budgets at admission, on two gateways sharing one Redis, with no worker: every request
 * accepted stays queued, so what is held is exactly what admission held (the settling of finished
 * jobs: apps/worker/test/usage-budgets-settle.int.test.ts).
 */
const ADMIN_TOKEN = "admin-token-for-the-budget-tests-0123456789";
const prefix = uniquePrefix("budgets");
let gwA: TestGateway;
let gwB: TestGateway;
beforeAll(async () => {
  // KEY_CACHE_TTL_MS 0: a key's budgets changed in the store apply to the next request.
  const env = { ADMIN_TOKEN, KEY_CACHE_TTL_MS: "0" };
  [gwA, gwB] = await Promise.all([startTestGateway(prefix, env), startTestGateway(prefix, env)]);
});
afterAll(async () => {
  await gwB.close({ keepKeys: true });
  await gwA.close();
});

const SUBMIT = { ...defaultRequest(), samplingParams: { max_tokens: 20 } };
const submit = (gw: TestGateway, key: string) =>
  request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).send(SUBMIT);
const admin = (gw: TestGateway) => ({
  post: (body: object) => request(gw.app).post("/admin/keys").auth(ADMIN_TOKEN, { type: "bearer" }).send(body),
  patch: (id: string, body: object) =>
    request(gw.app).patch(`/admin/keys/${id}`).auth(ADMIN_TOKEN, { type: "bearer" }).send(body),
});
const remainingTokens = (res: request.Response) => Number(res.headers["x-budget-tokens-remaining"]);
const secondsUntil = (ms: number) => Math.ceil((ms - Date.now()) / 1000);

/** The tokens one SUBMIT holds: what a first request leaves of a large budget, then cancelled (its hold given back). */
async function holdOfOneSubmit(keyId: string, key: string): Promise<number> {
  const probe = await submit(gwA, key);
  expect(probe.status).toBe(200);
  const held = 1_000_000 - remainingTokens(probe);
  const cancelled = await request(gwA.app)
    .delete(`/api/v2/status/${submittedId(probe)}`)
    .auth(key, { type: "bearer" });
  expect(cancelled.status).toBe(200);
  expect((await gwA.deps.budgetLedger.figures(keyId, utcDayOf(Date.now()))).tokensHeld).toBe(0);
  return held;
}

describe("usage budgets at admission, over two gateways", () => {
  it("when 20 requests burst over two gateways against a token budget that holds 5.5 of them, then exactly 5 are held and 15 get 429 BUDGET_EXCEEDED with Retry-After until midnight", async () => {
    const { id, key } = await gwA.createKeyWithSecrets({ limits: { tokens_day: 1_000_000 } });
    const ask = await holdOfOneSubmit(id, key);
    expect(ask).toBeGreaterThan(20); // the prompt's estimate and the reply's 20
    const cap = 5 * ask + Math.floor(ask / 2);
    expect((await admin(gwA).patch(id, { limits: { tokens_day: cap } })).status).toBe(200);

    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => submit(i % 2 ? gwB : gwA, key)));
    const accepted = answers.filter((res) => res.status === 200);
    const refused = answers.filter((res) => res.status === 429);
    expect([accepted.length, refused.length]).toEqual([5, 15]);
    // Each accepted request saw what was left after its own hold: the holds went one after another.
    expect(accepted.map(remainingTokens).sort((a, b) => b - a)).toEqual([1, 2, 3, 4, 5].map((n) => cap - n * ask));
    const midnight = secondsUntil(nextUtcDay(Date.now()));
    for (const res of refused) {
      expect(errorOf(res)).toMatchObject({ code: "BUDGET_EXCEEDED", details: { budget: "tokens_day", cap } });
      expect(Number(res.headers["retry-after"])).toBeGreaterThanOrEqual(midnight - 60);
      expect(Number(res.headers["retry-after"])).toBeLessThanOrEqual(midnight + 1);
      expect(res.headers["x-should-retry"]).toBe("false");
      expect(res.headers["x-budget-tokens-remaining"]).toBeUndefined();
    }
    const day = await gwA.deps.budgetLedger.figures(id, utcDayOf(Date.now()));
    expect(day).toEqual({ tokens: 0, tokensHeld: 5 * ask, audioMs: 0, audioMsHeld: 0 });
    expect(day.tokensHeld).toBeLessThanOrEqual(cap);

    const refusals = async (gw: TestGateway) =>
      Number(/budget_refusals_total\{budget="tokens_day"\} (\d+)/.exec(await gw.deps.metrics.render())?.[1] ?? 0);
    expect((await refusals(gwA)) + (await refusals(gwB))).toBe(15);
  });

  it("when /v1/chat/completions meets a spent budget, then it is 429 in OpenAI's insufficient_quota shape with Retry-After", async () => {
    const key = await gwA.createKey({ limits: { tokens_day: 10 } });
    const res = await request(gwB.app)
      .post("/v1/chat/completions")
      .auth(key, { type: "bearer" })
      .send({ model: "default", messages: [{ role: "user", content: "Hello there" }], max_tokens: 16 });
    expect(res.status).toBe(429);
    const { error } = res.body as OpenAiErrorEnvelope;
    expect(error).toEqual({
      message: expect.stringContaining("tokens_day budget is spent"),
      type: "insufficient_quota",
      param: null,
      code: "insufficient_quota",
    });
    expect(Number(res.headers["retry-after"])).toBeGreaterThan(0);
    expect(res.headers["x-should-retry"]).toBe("false");
  });

  it("when speech passes both its day's and its month's audio budget, then the month's refusal is the one answered (it lasts longer)", async () => {
    const key = await gwA.createKey({ limits: { audio_seconds_day: 1, audio_seconds_month: 2 } });
    const res = await request(gwA.app)
      .post("/api/tts")
      .auth(key, { type: "bearer" })
      .send({ text: "The witch stirred her cauldron slowly, humming an old song under her breath." });
    expect(res.status).toBe(429);
    expect(errorOf(res)).toMatchObject({ code: "BUDGET_EXCEEDED", details: { budget: "audio_seconds_month", cap: 2 } });
    const monthStart = secondsUntil(nextUtcMonth(Date.now()));
    expect(Number(res.headers["retry-after"])).toBeGreaterThanOrEqual(monthStart - 60);
    expect(Number(res.headers["retry-after"])).toBeLessThanOrEqual(monthStart + 1);
  });

  it("when a key has no budget, then its accepted request carries no budget header and holds nothing", async () => {
    const { id, key } = await gwA.createKeyWithSecrets();
    const res = await submit(gwB, key);
    expect(res.status).toBe(200);
    expect(res.headers["x-budget-tokens-remaining"]).toBeUndefined();
    expect(res.headers["x-budget-audio-seconds-remaining"]).toBeUndefined();
    expect(await gwA.deps.redis.exists(gwA.deps.keys.budgetHold(id, submittedId(res)))).toBe(0);
  });

  it("when a key has a token and an audio budget, then a text request with speak holds both and says what each has left", async () => {
    const key = await gwA.createKey({ limits: { tokens_month: 100_000, audio_seconds_day: 3600 } });
    const spoken = await request(gwA.app)
      .post("/api/text/default")
      .auth(key, { type: "bearer" })
      .send({ ...SUBMIT, speak: { format: "wav" } });
    expect(spoken.status).toBe(200);
    expect(remainingTokens(spoken)).toBeLessThan(100_000);
    expect(Number(spoken.headers["x-budget-audio-seconds-remaining"])).toBeLessThan(3600);
  });

  it.each([
    ["limits.tokens_day", { tokens_day: 0 }],
    ["limits.tokens_month", { tokens_month: -100 }],
    ["limits.audio_seconds_day", { audio_seconds_day: 1.5 }],
    ["limits.audio_seconds_month", { audio_seconds_month: 0 }],
  ])(
    "when a budget is 0, negative or fractional, then creating or patching a key is 400 naming %s",
    async (parameter, limits) => {
      const created = await admin(gwA).post({ name: `bad-budget-${parameter}`, limits });
      expect(created.status).toBe(400);
      expect(errorOf(created)).toMatchObject({ code: "INVALID_PARAMETER", details: { parameter } });
      const { id } = await gwA.createKeyWithSecrets();
      const patched = await admin(gwA).patch(id, { limits });
      expect(patched.status).toBe(400);
      expect((patched.body as ErrorEnvelope).error.details?.parameter).toBe(parameter);
    },
  );
});

describe("usage budgets in the OpenAPI document", () => {
  it("when /openapi.json is read, then submits name the budget headers, key limits the budgets with their bounds, and 429 BUDGET_EXCEEDED has an example", async () => {
    const doc = (await request(gwA.app).get("/openapi.json")).body as {
      paths: Record<string, Record<string, { responses: Record<string, { headers?: object }> }>>;
      components: {
        schemas: Record<string, { properties: { limits: { properties: Record<string, object> } } }>;
        responses: Record<string, { content: { "application/json": { examples: object } } }>;
      };
    };
    for (const [path, method] of [
      ["/api/text/default", "post"],
      ["/api/tts", "post"],
      ["/v1/chat/completions", "post"],
      ["/v1/audio/speech", "post"],
    ] as const)
      expect(Object.keys(doc.paths[path]![method]!.responses["200"]!.headers ?? {})).toEqual(
        expect.arrayContaining(["X-Budget-Tokens-Remaining", "X-Budget-Audio-Seconds-Remaining"]),
      );
    const limits = doc.components.schemas.NewApiKeyRequest!.properties.limits.properties;
    for (const budget of ["tokens_day", "tokens_month", "audio_seconds_day", "audio_seconds_month"])
      expect(limits[budget]).toMatchObject({ type: "integer", minimum: 1 });
    expect(Object.keys(doc.components.responses.Error429!.content["application/json"].examples)).toEqual(
      expect.arrayContaining(["BUDGET_EXCEEDED", "RATE_LIMITED"]),
    );
  });
});

describe("the deployment's usage budgets", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(uniquePrefix("budget-defaults"), { BUDGET_TOKENS_DAY: "10" });
  });
  afterAll(() => gw.close());

  it("when BUDGET_TOKENS_DAY is set, then a key without its own is held to it, and a key's own tokens_day overrides it", async () => {
    const bound = await submit(gw, await gw.createKey());
    expect(bound.status).toBe(429);
    expect(errorOf(bound)).toMatchObject({ code: "BUDGET_EXCEEDED", details: { budget: "tokens_day", cap: 10 } });
    const own = await submit(gw, await gw.createKey({ limits: { tokens_day: 50_000 } }));
    expect(own.status).toBe(200);
    expect(remainingTokens(own)).toBeGreaterThan(49_000);
  });
});
