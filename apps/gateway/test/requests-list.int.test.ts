import { randomUUID } from "node:crypto";
import type { StatusRecord } from "@chorus/contracts";
import request from "supertest";
import { MAX_ENTRIES_READ } from "../src/services/request-listing.js";
import { defaultRequest } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { errorOf, submittedId } from "../../../test-support/response-body.js";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway(uniquePrefix("requests-list"));
});
afterAll(() => gw.close());

interface Item {
  id: string;
  model: string;
  createdAt: string;
  status: string;
}
interface Page {
  data: Item[];
  nextCursor: string | null;
}

/** A fresh key (so each test sees only its own requests) and its id. */
async function newKey(limits = { text: 1000, status: 5000 }): Promise<{ secret: string; id: string }> {
  const secret = await gw.createKey({ limits });
  const record = await gw.deps.apiKeys.findBySecret(secret);
  return { secret, id: record?.id ?? "" };
}

const list = (secret: string, query: Record<string, string | number> = {}) =>
  request(gw.app).get("/api/v2/requests").query(query).auth(secret, { type: "bearer" });

async function submit(secret: string): Promise<string> {
  const res = await request(gw.app).post("/api/text/default").auth(secret, { type: "bearer" }).send(defaultRequest());
  expect(res.status).toBe(200);
  return submittedId(res);
}

/** Records as the gateway creates them, at chosen acceptance times (ms). */
async function createAt(keyId: string, times: number[], model: "default" | "Witch" = "default"): Promise<string[]> {
  const ids = times.map(() => randomUUID());
  await Promise.all(ids.map((id, i) => gw.deps.statuses.create(id, keyId, model, times[i])));
  return ids;
}

/** Every page from the first, following nextCursor; `between` runs before each next page. */
async function allPages(
  secret: string,
  query: Record<string, string | number>,
  between: () => Promise<unknown> = () => Promise.resolve(),
): Promise<Page[]> {
  const pages: Page[] = [];
  let cursor: string | null | undefined;
  do {
    const res = await list(secret, cursor ? { ...query, cursor } : query);
    expect(res.status).toBe(200);
    pages.push(res.body as Page);
    cursor = (res.body as Page).nextCursor;
    if (cursor) await between();
  } while (cursor);
  return pages;
}

const ids = (pages: Page[]) => pages.flatMap((page) => page.data.map((item) => item.id));

describe("GET /api/v2/requests", () => {
  it("when a key lists its requests, then they come newest first, each with id, model, createdAt and the record the status GET returns", async () => {
    const key = await newKey();
    const now = Date.now();
    const [oldest] = await createAt(key.id, [now - 2000]);
    const [middle] = await createAt(key.id, [now - 1000], "Witch");
    const [newest] = await createAt(key.id, [now]);
    await gw.deps.statuses.complete(middle as string, {
      reply: "Hi.",
      tokens: 2,
      promptTokens: 9,
      cachedTokens: 0,
      processingTime: 0.25,
      droppedMessages: 0,
      finishReason: "stop",
      maxTokens: 150,
    });

    const res = await list(key.secret);
    expect(res.status).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    const expected = await Promise.all(
      [
        [newest, "default", now],
        [middle, "Witch", now - 1000],
        [oldest, "default", now - 2000],
      ].map(async ([id, model, at]) => {
        const single = await request(gw.app)
          .get(`/api/v2/status/${String(id)}`)
          .auth(key.secret, { type: "bearer" });
        return { id, model, createdAt: new Date(at as number).toISOString(), ...(single.body as StatusRecord) };
      }),
    );
    expect(res.body).toEqual({ data: expected, nextCursor: null });
    expect(Object.keys((res.body as Page).data[0] ?? {}).slice(0, 4)).toEqual(["id", "model", "createdAt", "status"]);
  });

  it("when requests arrive between pages, then following nextCursor lists every earlier request exactly once and none of the new ones", async () => {
    const key = await newKey();
    for (let i = 0; i < 7; i++) await submit(key.secret);
    const before = ids([(await list(key.secret, { limit: 100 })).body as Page]);
    expect(before).toHaveLength(7);

    const arrived: string[] = [];
    const pages = await allPages(key.secret, { limit: 3 }, async () =>
      arrived.push(await submit(key.secret), await submit(key.secret)),
    );
    expect(pages.map((page) => page.data.length)).toEqual([3, 3, 1]);
    expect(ids(pages)).toEqual(before);
    expect(arrived).toHaveLength(4);
  });

  it("when many requests share one millisecond, then paging through them lists each exactly once", async () => {
    const key = await newKey();
    const now = Date.now();
    const created = await createAt(key.id, [now, now, now, now, now, now - 1]);
    const pages = await allPages(key.secret, { limit: 2 });
    expect(ids(pages).sort()).toEqual([...created].sort());
    expect(ids(pages)).toHaveLength(6);
    expect(ids(pages)[5]).toBe(created[5]);
  });

  it("when a status filter is given, then only requests in that state are listed, in full pages although the states interleave", async () => {
    const key = await newKey();
    const now = Date.now();
    const created = await createAt(
      key.id,
      Array.from({ length: 10 }, (_, i) => now - i * 10),
    );
    // Newest first: 0 completed, 1 processing, 2 error, 3 completed, ... (every third of each).
    for (const [i, id] of created.entries()) {
      if (i % 3 === 0)
        await gw.deps.statuses.complete(id, {
          reply: "x",
          tokens: 1,
          promptTokens: 1,
          cachedTokens: 0,
          processingTime: 0.1,
          droppedMessages: 0,
          finishReason: "stop",
          maxTokens: 150,
        });
      if (i % 3 === 2) await gw.deps.statuses.fail(id, "generation failed: test");
    }
    const wanted = (rest: number) => created.filter((_, i) => i % 3 === rest);

    const completed = await allPages(key.secret, { status: "completed", limit: 3 });
    expect(completed[0]?.data).toHaveLength(3);
    expect(ids(completed)).toEqual(wanted(0));
    expect(completed.flatMap((page) => page.data).every((item) => item.status === "completed")).toBe(true);
    expect(ids(await allPages(key.secret, { status: "processing" }))).toEqual(wanted(1));
    expect(ids(await allPages(key.secret, { status: "error" }))).toEqual(wanted(2));
  });

  it(`when a filter matches nothing among more than ${MAX_ENTRIES_READ} newer requests, then the first page is empty with a nextCursor that leads on to the match`, async () => {
    const key = await newKey();
    const now = Date.now();
    const [match] = await createAt(key.id, [now - 10_000]);
    await gw.deps.statuses.fail(match as string, "generation failed: test");
    await createAt(
      key.id,
      Array.from({ length: MAX_ENTRIES_READ }, (_, i) => now - i),
    );

    const first = (await list(key.secret, { status: "error" })).body as Page;
    expect(first.data).toEqual([]);
    expect(first.nextCursor).not.toBeNull();
    const second = (await list(key.secret, { status: "error", cursor: first.nextCursor as string })).body as Page;
    expect(second).toEqual({ data: [expect.objectContaining({ id: match, status: "error" })], nextCursor: null });
  });

  it("when another key lists, then it never sees this key's requests", async () => {
    const owner = await newKey();
    const stranger = await newKey();
    const mine = await submit(owner.secret);
    const theirs = await submit(stranger.secret);
    expect(ids([(await list(owner.secret)).body as Page])).toEqual([mine]);
    expect(ids([(await list(stranger.secret)).body as Page])).toEqual([theirs]);
  });

  it("when a record has expired, then it drops out of the list and out of the index", async () => {
    const key = await newKey();
    const now = Date.now();
    const [a, b, c] = await createAt(key.id, [now - 2, now - 1, now]);
    await gw.deps.redis.del(gw.deps.keys.status(b as string));
    expect(ids([(await list(key.secret)).body as Page])).toEqual([c, a]);
    expect(await gw.deps.redis.zscore(gw.deps.keys.textRequestsOfApiKey(key.id), b as string)).toBeNull();
  });

  it("when a request is created, then the key's index loses entries older than the retention and gets the records' TTL", async () => {
    const key = await newKey();
    const ttl = 86400;
    const [old] = await createAt(key.id, [Date.now() - (ttl + 60) * 1000]);
    const [fresh] = await createAt(key.id, [Date.now()]);
    const index = gw.deps.keys.textRequestsOfApiKey(key.id);
    expect(await gw.deps.redis.zrange(index, 0, -1)).toEqual([fresh]);
    expect(old).toBeDefined();
    const left = await gw.deps.redis.ttl(index);
    expect(left).toBeGreaterThan(ttl - 60);
    expect(left).toBeLessThanOrEqual(ttl);
  });

  it("when a key lists, then it counts once against its status budget", async () => {
    const key = await newKey({ text: 100, status: 10 });
    await createAt(key.id, [Date.now(), Date.now() - 1, Date.now() - 2]);
    const res = await list(key.secret);
    expect(res.headers["x-ratelimit-limit"]).toBe("10");
    expect(res.headers["x-ratelimit-remaining"]).toBe("9");
  });

  it.each([
    ["limit", { limit: 0 }],
    ["limit", { limit: 101 }],
    ["limit", { limit: "ten" }],
    ["limit", { limit: 2.5 }],
    ["status", { status: "queued" }],
    ["cursor", { cursor: "not-a-cursor" }],
    ["cursor", { cursor: Buffer.from("123:abc:def").toString("base64url") }],
    ["cursor", { cursor: "" }],
    ["sort", { sort: "asc" }],
  ])("when %s is bad (%j), then it is 400 INVALID_PARAMETER naming it", async (parameter, query) => {
    const key = await newKey();
    const res = await list(key.secret, query);
    expect(res.status).toBe(400);
    expect(errorOf(res).code).toBe("INVALID_PARAMETER");
    expect(errorOf(res).details?.parameter).toBe(parameter);
    expect(res.headers["x-ratelimit-remaining"]).toBeDefined();
  });

  it("when limit is sent twice, then it is 400 naming limit", async () => {
    const key = await newKey();
    const res = await request(gw.app).get("/api/v2/requests?limit=1&limit=2").auth(key.secret, { type: "bearer" });
    expect(res.status).toBe(400);
    expect(errorOf(res).details?.parameter).toBe("limit");
  });

  it("when no key is sent, then it is 401", async () => {
    expect((await request(gw.app).get("/api/v2/requests")).status).toBe(401);
  });
});
