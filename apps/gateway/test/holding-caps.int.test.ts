import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from "@jest/globals";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import type { RequestsListPage } from "@chorus/contracts";
import request from "supertest";
import { defaultRequest } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { submittedId } from "../../../test-support/response-body.js";
import { openStatusStream, type StatusStreamClient } from "../../../test-support/sse.js";
import { OpenStreams } from "../src/services/open-streams.js";
import { waitFor } from "../../../test-support/wait-for.js";

/**
 * What one key may hold at once: text requests in flight, and open status streams and
 * `Prefer: wait` holds, each capped per key (its own limit, else the deployment's), streams also per
 * gateway. No worker runs here: submitted requests stay waiting, so streams on them stay open.
 */
let gw: TestGateway;
let server: Server;
let baseUrl: string;
const opened: StatusStreamClient[] = [];

beforeAll(async () => {
  gw = await startTestGateway(uniquePrefix("caps"), {
    MAX_IN_FLIGHT_PER_KEY: "3",
    MAX_STREAMS_PER_KEY: "2",
    MAX_STREAMS_PER_GATEWAY: "4",
  });
  server = gw.app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(() => {
  for (const sse of opened.splice(0)) sse.abort();
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await gw.close();
});

const submit = (key: string, headers: Record<string, string> = {}) =>
  request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).set(headers).send(defaultRequest());
const cancel = (key: string, id: string) =>
  request(gw.app).delete(`/api/v2/status/${id}`).auth(key, { type: "bearer" });
const listed = async (key: string) =>
  ((await request(gw.app).get("/api/v2/requests").auth(key, { type: "bearer" })).body as RequestsListPage).data;

/** A stream the caps refuse: its body is the error envelope, not events. */
const refusedStream = (key: string, id: string) =>
  fetch(`${baseUrl}/api/v2/status/${id}`, { headers: { authorization: `Bearer ${key}`, accept: "text/event-stream" } });

async function stream(key: string, id: string): Promise<StatusStreamClient> {
  const sse = await openStatusStream(`${baseUrl}/api/v2/status/${id}`, key);
  opened.push(sse);
  return sse;
}

/** Submits until the key holds `count` requests; returns their ids. */
async function fill(key: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await submit(key);
    expect(res.status).toBe(200);
    ids.push(submittedId(res));
  }
  return ids;
}

/** The body and headers a client sees when refused for a cap. */
function expectRefusal(
  res: { status: number; headers: Record<string, string>; body: unknown },
  status: number,
  message: RegExp,
): void {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({
    status: "error",
    error: { code: status === 429 ? "RATE_LIMITED" : "SERVICE_UNAVAILABLE", message: expect.stringMatching(message) },
  });
  expect(Number(res.headers["retry-after"])).toBeGreaterThanOrEqual(1);
}

describe("requests in flight per key", () => {
  it("when a key holds its cap of requests waiting, then one more is 429 naming the cap, nothing is queued, and a finished one frees a place", async () => {
    const key = await gw.createKey();
    const ids = await fill(key, 3);
    const refused = await submit(key);
    expectRefusal(refused, 429, /max in flight 3/);
    expect(await listed(key)).toHaveLength(3);

    expect((await cancel(key, ids[0]!)).status).toBe(200);
    expect((await submit(key)).status).toBe(200);
    expectRefusal(await submit(key), 429, /max in flight 3/);
  });

  it("when one key is at its cap, then another key still submits", async () => {
    const [full, other] = [await gw.createKey(), await gw.createKey()];
    await fill(full, 3);
    expect((await submit(full)).status).toBe(429);
    expect((await submit(other)).status).toBe(200);
  });

  it("when a key has its own inflight limit, then it applies instead of the deployment's", async () => {
    const key = await gw.createKey({ limits: { inflight: 1 } });
    await fill(key, 1);
    expectRefusal(await submit(key), 429, /max in flight 1\)/);
  });

  it("when a submit with an Idempotency-Key is refused at the cap, then the key is released and the same retry succeeds once a place is free", async () => {
    const key = await gw.createKey({ limits: { inflight: 1 } });
    const [first] = await fill(key, 1);
    expect((await submit(key, { "Idempotency-Key": "retry-1" })).status).toBe(429);
    await cancel(key, first!);
    const retried = await submit(key, { "Idempotency-Key": "retry-1" });
    expect(retried.status).toBe(200);
    expect(submittedId(retried)).not.toBe(first);
  });
});

describe("open streams and waits per key", () => {
  it("when a key holds its cap of open status streams, then another stream, a status wait and a submit wait are 429 naming the cap; a closed stream frees its place", async () => {
    const key = await gw.createKey();
    const [a, b] = await fill(key, 2);
    const first = await stream(key, a!);
    await stream(key, b!);
    expect(first.response.status).toBe(200);

    const refused = await refusedStream(key, a!);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({
      error: { code: "RATE_LIMITED", message: expect.stringMatching(/max streams 2/) },
    });
    expectRefusal(
      await request(gw.app).get(`/api/v2/status/${a}`).auth(key, { type: "bearer" }).set("Prefer", "wait=5"),
      429,
      /max streams 2/,
    );
    expectRefusal(await submit(key, { Prefer: "wait=5" }), 429, /max streams 2/);
    expect(await listed(key)).toHaveLength(2); // the refused wait queued nothing

    first.abort();
    await expect(first.ended).rejects.toThrow();
    await untilOpen(1);
    expect((await stream(key, a!)).response.status).toBe(200);
  });

  it("when the record is final, then a stream or wait on it takes no place (it ends at once)", async () => {
    const key = await gw.createKey({ limits: { streams: 1 } });
    const [a, b] = await fill(key, 2);
    await cancel(key, b!);
    await stream(key, a!);
    const final = await stream(key, b!);
    expect(final.response.status).toBe(200);
    await final.ended;
    expect(
      (await request(gw.app).get(`/api/v2/status/${b}`).auth(key, { type: "bearer" }).set("Prefer", "wait=5")).status,
    ).toBe(200);
  });

  it("when the gateway holds its cap of streams (all keys), then one more is 503 with Retry-After", async () => {
    await untilOpen(0); // the earlier tests' streams, closed by their clients
    const keys = [await gw.createKey(), await gw.createKey(), await gw.createKey()];
    const ids = await Promise.all(keys.map(async (key) => (await fill(key, 2)) as [string, string]));
    for (const [i, key] of keys.slice(0, 2).entries()) for (const id of ids[i]!) await stream(key, id);
    const refused = await refusedStream(keys[2]!, ids[2]![0]);
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({
      error: {
        code: "SERVICE_UNAVAILABLE",
        message: expect.stringMatching(/most open status streams and waits \(4\)/),
      },
    });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });
});

describe("open streams counted over every gateway", () => {
  const streamsOf = (lifetimeMs = 30_000) =>
    new OpenStreams(gw.deps.redis, gw.deps.keys, { perGateway: 100, lifetimeMs });
  const setOf = (keyId: string) => gw.deps.keys.openStreamsOfApiKey(keyId);
  const redisNowMs = async () => {
    const [seconds, micros] = await gw.deps.redis.time();
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  };
  /** What a lifetime passing without renewal leaves: every entry's expiry behind Redis's clock. */
  const lapseAll = async (keyId: string) => {
    const lapsedAt = (await redisNowMs()) - 1;
    for (const entry of await gw.deps.redis.zrange(setOf(keyId), 0, -1)) {
      await gw.deps.redis.zadd(setOf(keyId), "XX", lapsedAt, entry);
    }
  };
  /** Only Date is faked: timers and ioredis run as ever, while this process's clock reads `skewMs` off. */
  const skewClock = (skewMs: number) => {
    jest.useFakeTimers({
      doNotFake: [
        "hrtime",
        "nextTick",
        "performance",
        "queueMicrotask",
        "requestAnimationFrame",
        "cancelAnimationFrame",
        "requestIdleCallback",
        "cancelIdleCallback",
        "setImmediate",
        "clearImmediate",
        "setInterval",
        "clearInterval",
        "setTimeout",
        "clearTimeout",
      ],
      now: Date.now() + skewMs,
    });
  };
  afterEach(() => {
    jest.useRealTimers();
  });

  it("when two gateways hold a key's streams, then its cap counts both, and a release on one frees a place for the other", async () => {
    const [one, two] = [streamsOf(), streamsOf()];
    const release = await one.hold("key_both", 2);
    await two.hold("key_both", 2);
    await expect(one.hold("key_both", 2)).rejects.toMatchObject({ code: "RATE_LIMITED" });
    release();
    release(); // a second call changes nothing
    // The release's ZREM went down the same connection just before: Redis has applied it by now.
    await two.hold("key_both", 2);
    await expect(two.hold("key_both", 2)).rejects.toMatchObject({ code: "RATE_LIMITED" });
    [one, two].forEach((streams) => streams.close());
  });

  it("when a gateway dies holding streams, then they lapse a lifetime after by Redis's clock, not before", async () => {
    const [dead, alive] = [streamsOf(1000), streamsOf(1000)];
    const before = await redisNowMs();
    await dead.hold("key_dead", 1);
    const after = await redisNowMs();
    dead.close(); // no more renewals, and never a release
    const [, expiry] = await gw.deps.redis.zrange(setOf("key_dead"), 0, -1, "WITHSCORES");
    expect(Number(expiry)).toBeGreaterThanOrEqual(before + 1000);
    expect(Number(expiry)).toBeLessThanOrEqual(after + 1000);
    await expect(alive.hold("key_dead", 1)).rejects.toMatchObject({ code: "RATE_LIMITED" });
    await lapseAll("key_dead");
    await alive.hold("key_dead", 1);
    alive.close();
  });

  it("when a gateway's clock runs a minute ahead, then its opens do not sweep away another gateway's live streams", async () => {
    const onTime = streamsOf();
    await onTime.hold("key_skew", 2);
    skewClock(60_000);
    const ahead = streamsOf();
    await ahead.hold("key_skew", 2);
    await expect(ahead.hold("key_skew", 2)).rejects.toMatchObject({ code: "RATE_LIMITED" });
    expect(await gw.deps.redis.zcard(setOf("key_skew"))).toBe(2);
    [onTime, ahead].forEach((streams) => streams.close());
  });

  it("when a gateway's clock runs a minute behind, then its live streams are not swept away by another gateway's opens", async () => {
    skewClock(-60_000);
    const behind = streamsOf();
    await behind.hold("key_behind", 2);
    jest.useRealTimers();
    const onTime = streamsOf();
    await onTime.hold("key_behind", 2);
    await expect(onTime.hold("key_behind", 2)).rejects.toMatchObject({ code: "RATE_LIMITED" });
    [behind, onTime].forEach((streams) => streams.close());
  });

  it("when a key's entries lapsed while Redis was out of reach, then the next renewal puts them back and the cap holds", async () => {
    const [holder, other] = [streamsOf(), streamsOf()];
    for (let i = 0; i < 3; i++) await holder.hold("key_outage", 3);
    const expectCapHolds = async () => {
      await holder.renew();
      expect(await gw.deps.redis.zcard(setOf("key_outage"))).toBe(3);
      await expect(other.hold("key_outage", 3)).rejects.toMatchObject({ code: "RATE_LIMITED" });
    };
    // Longer than a lifetime without renewals: all lapsed, two already swept by another open.
    await lapseAll("key_outage");
    const [, ...swept] = await gw.deps.redis.zrange(setOf("key_outage"), 0, -1);
    await gw.deps.redis.zrem(setOf("key_outage"), ...swept);
    await expectCapHolds();
    // Longer still: the set itself expired.
    await gw.deps.redis.del(setOf("key_outage"));
    await expectCapHolds();
    expect(await gw.deps.redis.pttl(setOf("key_outage"))).toBeGreaterThan(0);
    [holder, other].forEach((streams) => streams.close());
  });
});

/**
 * Waits until the gateway's own count of open streams is `count` (a stream's end is seen by the server a moment after
 * the client's).
 */
async function untilOpen(count: number): Promise<void> {
  await waitFor(`${count} open streams`, () => gw.deps.openStreams.open === count, {
    timeoutMs: 10_000,
    intervalMs: 10,
  });
}
