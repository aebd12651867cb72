import type { RequestsListPage, StatusRecord } from "@chorus/contracts";
import { JobTimeStats, workerSlotsEntry } from "@chorus/platform/scheduler";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import OpenAI from "openai";
import request from "supertest";
import { defaultRequest } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { errorOf, submittedId } from "../../../test-support/response-body.js";

/**
 * A caller's queue deadline at the gateway (no worker running): refused at once when the queue's
 * own estimate says the request would start after it, filed for the workers' sweep otherwise.
 */
let gw: TestGateway;
let key: string;
beforeEach(async () => {
  gw = await startTestGateway(uniquePrefix("queue-deadline"));
  key = await gw.createKey();
});
afterEach(() => gw.close());

const submit = (body: object, prefer?: string) => {
  const call = request(gw.app).post("/api/text/default").auth(key, { type: "bearer" });
  return (prefer ? call.set("Prefer", prefer) : call).send(body);
};
const status = async (id: string) =>
  (await request(gw.app).get(`/api/v2/status/${id}`).auth(key, { type: "bearer" })).body as StatusRecord;

/** One live worker slot, busy, jobs taking 5 s, and `waiting` requests queued: ~5 s of wait per job ahead. */
async function aBusyQueue(waiting: number): Promise<string[]> {
  await new JobTimeStats(gw.deps.redis, gw.deps.keys.textJobStats()).record(5);
  await gw.deps.redis.hset(gw.deps.keys.workerSlots(), "w1", workerSlotsEntry(1, Date.now() + 60_000));
  const ids: string[] = [];
  for (let i = 0; i < waiting; i++) ids.push(submittedId(await submit(defaultRequest())));
  return ids;
}

const textQueue = () => gw.deps.queues[0]!;
const webhookQueue = () => gw.deps.queues.at(-1)!;

describe("a text request with a queue deadline", () => {
  it("when the queue's estimate says it would start after its maxQueueMs, then it is refused at once: 429 QUEUE_TIMEOUT with Retry-After, nothing queued, no webhook delivered", async () => {
    await aBusyQueue(3);
    const before = await textQueue().count();
    const res = await submit({ ...defaultRequest(), maxQueueMs: 2000, webhook: "https://example.com/hook" });
    expect(res.status).toBe(429);
    expect(errorOf(res).code).toBe("QUEUE_TIMEOUT");
    expect(errorOf(res).message).toMatch(/maxQueueMs of 2000 ms/);
    // Three ahead on one busy slot, 5 s a job: it starts after the running job's remaining half and the three
    // ahead, 5 * 3.5 = 17.5 s from now; Retry-After is what is left past the 2 s it would wait.
    expect(errorOf(res).message).toMatch(/start in about 18 s/);
    expect(res.headers["retry-after"]).toBe("16");
    expect(res.headers["x-should-retry"]).toBe("false");
    expect(await textQueue().count()).toBe(before);
    expect(await webhookQueue().count()).toBe(0);
    expect(await gw.deps.redis.zcard(gw.deps.keys.textQueueDeadlines())).toBe(0);
    // Its record (in the key's listing only: the client holds no id) says the submit was not queued.
    const listed = await request(gw.app).get("/api/v2/requests").auth(key, { type: "bearer" });
    const failed = (listed.body as RequestsListPage).data.filter((item) => item.status === "error");
    expect(failed).toEqual([expect.objectContaining({ errorCode: "not_queued" })]);
  });

  it("when the estimate says it starts in time, or nothing is measured yet, then it is accepted and its deadline filed for the sweep", async () => {
    const unmeasured = submittedId(await submit({ ...defaultRequest(), maxQueueMs: 1500 }));
    await aBusyQueue(1);
    const inTime = submittedId(await submit(defaultRequest(), "wait-queue=60"));
    const deadlines = await gw.deps.redis.zrange(gw.deps.keys.textQueueDeadlines(), 0, -1, "WITHSCORES");
    expect(deadlines.filter((_, i) => i % 2 === 0).sort()).toEqual([unmeasured, inTime].sort());
    const acceptedAt = Number(deadlines[deadlines.indexOf(inTime) + 1]) - 60_000;
    expect(Math.abs(acceptedAt - Date.now())).toBeLessThan(60_000);
    expect((await status(inTime)).status).toBe("processing");
  });

  it("when the body's maxQueueMs and Prefer: wait-queue are both given, then the body wins", async () => {
    await aBusyQueue(3);
    // The header alone would be refused (1 s); the body's hour is accepted.
    expect((await submit(defaultRequest(), "wait-queue=1")).status).toBe(429);
    expect((await submit({ ...defaultRequest(), maxQueueMs: 3_600_000 }, "wait-queue=1")).status).toBe(200);
  });

  it.each([
    [{ maxQueueMs: 50 }, undefined, "maxQueueMs"],
    [{ maxQueueMs: 86_400_001 }, undefined, "maxQueueMs"],
    [{ maxQueueMs: 1.5 }, undefined, "maxQueueMs"],
    [{}, "wait-queue=0", "Prefer: wait-queue"],
    [{}, "wait-queue=soon", "Prefer: wait-queue"],
    [{}, "wait=5, wait-queue=90000", "Prefer: wait-queue"],
  ])("when the deadline is out of bounds (%j, Prefer %s), then 400 names %s", async (extra, prefer, parameter) => {
    const res = await submit({ ...defaultRequest(), ...extra }, prefer);
    expect(res.status).toBe(400);
    expect(errorOf(res).code).toBe("INVALID_PARAMETER");
    expect(errorOf(res).details?.parameter).toBe(parameter);
  });

  it("when /v1 is asked with Prefer: wait-queue through the official openai client, then it raises a 429 queue_timeout at once, without retrying", async () => {
    await aBusyQueue(3);
    const server: Server = gw.app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      let sent = 0;
      const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      const openai = new OpenAI({ baseURL, apiKey: key, fetch: (url, init) => (sent++, fetch(url, init)) });
      const call = openai.chat.completions.create(
        { model: "default", messages: [{ role: "user", content: "Hello" }] },
        { headers: { Prefer: "wait-queue=1" } },
      );
      await expect(call).rejects.toMatchObject({ status: 429, code: "queue_timeout", type: "rate_limit_error" });
      expect(sent).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
