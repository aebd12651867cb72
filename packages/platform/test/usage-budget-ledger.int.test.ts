import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { UsageBudgetLedger } from "../src/budgets/index.js";
import { createGatewayRedis, createWorkerRedis, redisKeys, waitUntilReady } from "../src/redis/index.js";
import { deleteKeysWithPrefix, TEST_REDIS, uniquePrefix } from "../../../test-support/redis.js";

const prefix = uniquePrefix("budget-ledger");
const keys = redisKeys(prefix);
// Two connections of two kinds, as a gateway and a worker hold them.
const gatewayRedis = createGatewayRedis(TEST_REDIS);
const workerRedis = createWorkerRedis(TEST_REDIS);
const NOW = Date.parse("2026-11-28T10:00:00.000Z");
const ledger = new UsageBudgetLedger(gatewayRedis, keys, () => NOW);
const other = new UsageBudgetLedger(workerRedis, keys, () => NOW);
beforeAll(() => Promise.all([waitUntilReady(gatewayRedis, 5000), waitUntilReady(workerRedis, 5000)]));
afterAll(async () => {
  gatewayRedis.disconnect();
  workerRedis.disconnect();
  await deleteKeysWithPrefix(TEST_REDIS, prefix);
});

let keyCount = 0;
const newKey = () => `key_ledger${++keyCount}`;
const ask = (tokens: number, audioMs = 0) => ({ tokens, audioMs });

describe("UsageBudgetLedger", () => {
  it("when holds reach the cap, then the next is refused naming the budget and what is in use, and nothing more is held", async () => {
    const keyId = newKey();
    const caps = { tokens_day: 250 };
    const first = await ledger.reserve(keyId, "r1", ask(100), caps);
    expect(first).toEqual({
      held: true,
      hold: { day: "2026-11-28", month: "2026-11", tokens: 100, audioMs: 0 },
      tokensLeft: 150,
      audioSecondsLeft: null,
    });
    expect(await ledger.reserve(keyId, "r2", ask(100), caps)).toMatchObject({ held: true, tokensLeft: 50 });
    expect(await ledger.reserve(keyId, "r3", ask(100), caps)).toEqual({
      held: false,
      refused: [{ budget: "tokens_day", cap: 250, inUse: 200 }],
    });
    expect(await ledger.figures(keyId, "2026-11-28")).toEqual({
      tokens: 0,
      tokensHeld: 200,
      audioMs: 0,
      audioMsHeld: 0,
    });
    expect(await ledger.figures(keyId, "2026-11")).toEqual({ tokens: 0, tokensHeld: 200, audioMs: 0, audioMsHeld: 0 });
    // What fits still fits.
    expect(await ledger.reserve(keyId, "r4", ask(50), caps)).toMatchObject({ held: true, tokensLeft: 0 });
  });

  it("when a request settles, then its hold is given back and its use added, once: a second settle changes nothing", async () => {
    const keyId = newKey();
    const caps = { tokens_day: 1000, tokens_month: 5000 };
    await ledger.reserve(keyId, "r1", ask(300), caps);
    const settlement = { keyId, requestId: "r1", day: "2026-11-28", month: "2026-11", tokens: 120, audioMs: 0 };
    expect(await other.settle(settlement)).toBe(true);
    expect(await other.settle({ ...settlement, tokens: 999 })).toBe(false);
    expect(await ledger.figures(keyId, "2026-11-28")).toEqual({
      tokens: 120,
      tokensHeld: 0,
      audioMs: 0,
      audioMsHeld: 0,
    });
    expect(await ledger.figures(keyId, "2026-11")).toEqual({ tokens: 120, tokensHeld: 0, audioMs: 0, audioMsHeld: 0 });
    // The use counts against the caps: the day's room is 1000 - 120.
    expect(await ledger.reserve(keyId, "r2", ask(880), caps)).toMatchObject({ held: true, tokensLeft: 0 });
    expect(await ledger.reserve(keyId, "r3", ask(1), caps)).toMatchObject({ held: false });
  });

  it("when the settle is added to a pipeline with other commands, then one exec writes them all and the settle's reply is 1", async () => {
    const keyId = newKey();
    await ledger.reserve(keyId, "r1", ask(0, 5000), { audio_seconds_month: 60 });
    const batch = other.pipeline().incr(keys.apiKeyUsage(keyId, "2026-11-28"));
    other.settleIn(batch, { keyId, requestId: "r1", day: "2026-11-28", month: "2026-11", tokens: 0, audioMs: 4200 });
    const replies = await batch.exec();
    expect(replies?.map(([error]) => error)).toEqual([null, null]);
    expect(replies?.[1]?.[1]).toBe(1);
    expect(await ledger.figures(keyId, "2026-11")).toEqual({ tokens: 0, tokensHeld: 0, audioMs: 4200, audioMsHeld: 0 });
  });

  it("when a request held nothing (no cap applied), then its settle still counts its use, once", async () => {
    const keyId = newKey();
    expect(await ledger.reserve(keyId, "r1", ask(100), {})).toBeNull();
    const settlement = { keyId, requestId: "r1", day: "2026-11-28", month: "2026-11", tokens: 70, audioMs: 0 };
    expect(await other.settle(settlement)).toBe(true);
    expect(await other.settle(settlement)).toBe(false);
    expect((await ledger.figures(keyId, "2026-11-28")).tokens).toBe(70);
    // A cap set later in the day sees that use.
    expect(await ledger.reserve(keyId, "r2", ask(31), { tokens_day: 100 })).toMatchObject({ held: false });
  });

  it("when a speech request meets a spent token budget, then it is held (only its own measure is checked)", async () => {
    const keyId = newKey();
    const caps = { tokens_day: 10, audio_seconds_day: 30 };
    await ledger.reserve(keyId, "r1", ask(10), caps);
    const speech = await ledger.reserve(keyId, "r2", ask(0, 20_000), caps);
    expect(speech).toMatchObject({ held: true, tokensLeft: 0, audioSecondsLeft: 10 });
    expect(await ledger.reserve(keyId, "r3", ask(0, 10_001), caps)).toEqual({
      held: false,
      refused: [{ budget: "audio_seconds_day", cap: 30, inUse: 20 }],
    });
  });

  it("when a held request is released, then its hold is given back with no use; a request with no hold releases nothing", async () => {
    const keyId = newKey();
    await ledger.reserve(keyId, "r1", ask(40), { tokens_month: 100 });
    expect(await other.release(keyId, "r1")).toBe(true);
    expect(await other.release(keyId, "r1")).toBe(false);
    expect(await other.release(keyId, "never-held")).toBe(false);
    expect(await ledger.figures(keyId, "2026-11")).toEqual({ tokens: 0, tokensHeld: 0, audioMs: 0, audioMsHeld: 0 });
  });

  it("when 40 requests race for a cap from two connections, then exactly those that fit are held and the holds never pass the cap", async () => {
    const keyId = newKey();
    const caps = { tokens_day: 1050 };
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? other : ledger).reserve(keyId, `race-${i}`, ask(100), caps)),
    );
    expect(results.filter((r) => r?.held).length).toBe(10);
    expect(results.filter((r) => r && !r.held).length).toBe(30);
    expect((await ledger.figures(keyId, "2026-11-28")).tokensHeld).toBe(1000);
  });
});
