import { randomUUID } from "node:crypto";
import type { BatchStatusItem } from "@chorus/contracts";
import request from "supertest";
import { defaultRequest } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { errorOf, submittedId } from "../../../test-support/response-body.js";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway(uniquePrefix("batch-status"));
});
afterAll(() => gw.close());

const batch = (secret: string, ids: string) =>
  request(gw.app).get("/api/v2/status").query({ ids }).auth(secret, { type: "bearer" });
const single = (secret: string, id: string) =>
  request(gw.app).get(`/api/v2/status/${id}`).auth(secret, { type: "bearer" });
/** The items of a batch answer (GET /api/v2/status?ids=). */
const itemsOf = (res: { body: unknown }) => (res.body as { data: BatchStatusItem[] }).data;

async function submit(secret: string): Promise<string> {
  const res = await request(gw.app).post("/api/text/default").auth(secret, { type: "bearer" }).send(defaultRequest());
  expect(res.status).toBe(200);
  return submittedId(res);
}

describe("GET /api/v2/status?ids=", () => {
  it("when ids mix found, unknown and another key's, then each is answered in the order asked, duplicates once", async () => {
    const owner = await gw.createKey();
    const stranger = await gw.createKey();
    const [a, b] = [await submit(owner), await submit(owner)];
    const theirs = await submit(stranger);
    const unknown = randomUUID();
    await gw.deps.statuses.complete(b, {
      reply: "Done.",
      tokens: 2,
      promptTokens: 8,
      cachedTokens: 0,
      processingTime: 0.2,
      droppedMessages: 0,
      finishReason: "stop",
      maxTokens: 150,
    });

    const res = await batch(owner, [b, a, unknown, theirs, a, b].join(","));
    expect(res.status).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    const notFound = async (id: string) => ({
      id,
      error: { code: "NOT_FOUND", message: errorOf(await single(owner, id)).message },
    });
    expect(res.body).toEqual({
      data: [
        { id: b, ...(await single(owner, b)).body },
        { id: a, ...(await single(owner, a)).body },
        await notFound(unknown),
        await notFound(theirs),
      ],
    });
    expect(itemsOf(res)[0]).toMatchObject({ id: b, status: "completed", reply: "Done." });
  });

  it("when 100 distinct ids are asked, then all 100 are answered", async () => {
    const owner = await gw.createKey({ limits: { status: 1000 } });
    const ids = Array.from({ length: 100 }, () => randomUUID());
    const res = await batch(owner, ids.join(","));
    expect(res.status).toBe(200);
    expect(itemsOf(res).map((item) => item.id)).toEqual(ids);
  });

  it.each([
    ["101 distinct ids", Array.from({ length: 101 }, () => randomUUID()).join(",")],
    ["no id", ""],
    ["an empty item", "a,,b"],
    ["a trailing comma", "a,"],
    ["an id that is not id-shaped", "abc,not an id"],
    ["an id too long", "x".repeat(65)],
  ])("when ids has %s, then it is 400 INVALID_PARAMETER naming ids", async (_case, ids) => {
    const owner = await gw.createKey({ limits: { status: 1000 } });
    const res = await batch(owner, ids);
    expect(res.status).toBe(400);
    expect(errorOf(res).code).toBe("INVALID_PARAMETER");
    expect(errorOf(res).details?.parameter).toBe("ids");
  });

  it("when ids is missing or another parameter is sent, then it is 400 naming that parameter", async () => {
    const owner = await gw.createKey();
    const missing = await request(gw.app).get("/api/v2/status").auth(owner, { type: "bearer" });
    expect(missing.status).toBe(400);
    expect(errorOf(missing).details?.parameter).toBe("ids");
    const extra = await request(gw.app).get("/api/v2/status?ids=a&limit=3").auth(owner, { type: "bearer" });
    expect(extra.status).toBe(400);
    expect(errorOf(extra).details?.parameter).toBe("limit");
  });

  it("when a batch is answered, then the status budget is charged one poll per distinct id", async () => {
    const owner = await gw.createKey({ limits: { status: 20 } });
    const res = await batch(owner, [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()].join(","));
    expect(res.status).toBe(200);
    expect(res.headers["x-ratelimit-limit"]).toBe("20");
    expect(res.headers["x-ratelimit-remaining"]).toBe("15");
    const id = randomUUID();
    expect((await batch(owner, [id, id, id].join(","))).headers["x-ratelimit-remaining"]).toBe("14");
    expect((await single(owner, id)).headers["x-ratelimit-remaining"]).toBe("13");
  });

  it("when the budget left is smaller than the batch, then the whole batch is 429 and costs one poll", async () => {
    const owner = await gw.createKey({ limits: { status: 10 } });
    const ids = (n: number) => Array.from({ length: n }, () => randomUUID()).join(",");
    expect((await batch(owner, ids(8))).headers["x-ratelimit-remaining"]).toBe("2");

    const refused = await batch(owner, ids(3));
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: { code: "RATE_LIMITED" }, status: "error" });
    expect(refused.body).not.toHaveProperty("data");
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(refused.headers["x-ratelimit-limit"]).toBe("10");
    expect(refused.headers["x-ratelimit-remaining"]).toBe("1");

    const last = await batch(owner, ids(1));
    expect(last.status).toBe(200);
    expect(last.headers["x-ratelimit-remaining"]).toBe("0");
    expect((await batch(owner, ids(1))).status).toBe(429);
  });

  it("when no key is sent, then it is 401", async () => {
    expect((await request(gw.app).get("/api/v2/status?ids=a")).status).toBe(401);
  });
});
