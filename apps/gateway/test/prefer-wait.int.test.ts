import { get, type Server } from "node:http";
import { setTimeout as delay } from "node:timers/promises";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import request from "supertest";
import { defaultRequest, describeWithModel, SAMPLE_COMPLETION } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { submittedId } from "../../../test-support/response-body.js";
import { loadFixtureEngine, startTestWorker } from "../../../test-support/worker.js";
import { waitFor } from "../../../test-support/wait-for.js";

/** `Prefer: wait=N` (RFC 7240) on the status GET and on submit: an answer without polling. */
let gw: TestGateway;
let key: string;
beforeAll(async () => {
  gw = await startTestGateway(uniquePrefix("prefer-wait"));
  key = await gw.createKey();
});
afterAll(() => gw.close());

const submit = () => request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).send(defaultRequest());
const status = (id: string, prefer?: string) => {
  const req = request(gw.app).get(`/api/v2/status/${id}`).auth(key, { type: "bearer" });
  return prefer ? req.set("Prefer", prefer) : req;
};
const completion = SAMPLE_COMPLETION;

describe("Prefer: wait on the status GET", () => {
  // Both ask to wait 60 s under a 30 s test limit: they pass only if the finish ends the wait.
  it("when the job finishes while the client waits, then the wait ends with the finished record", async () => {
    const { id } = (await submit()).body as { id: string };
    const waiting = status(id, "wait=60").then((res) => res);
    await waitFor("the wait to be held", () => gw.deps.finalStatusWaits.waiting > 0, {
      timeoutMs: 5000,
      intervalMs: 20,
    });
    expect(gw.deps.finalStatusWaits.waiting).toBe(1);
    await gw.deps.statuses.complete(id, completion);
    const res = await waiting;
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "completed", reply: "Once upon a time.", tokens: 5 });
    expect(res.headers["preference-applied"]).toBe("wait=60");
    expect(res.headers.vary).toContain("Prefer");
    expect(gw.deps.finalStatusWaits.waiting).toBe(0);
  }, 30_000);

  it("when the job finishes after the record was read but before the wait began, then the wait ends at once", async () => {
    const { id } = (await submit()).body as { id: string };
    const waits = gw.deps.finalStatusWaits;
    const listen = waits.listen.bind(waits);
    // The record is finalized and its message published before the wait registers: only the read
    // after subscribing can see it.
    const spy = jest.spyOn(waits, "listen").mockImplementationOnce((...args) => {
      const registered = gw.deps.statuses.complete(id, completion).then(() => listen(...args));
      return {
        subscribed: registered.then((wait) => wait.subscribed),
        finished: registered.then((wait) => wait.finished),
      };
    });
    try {
      const res = await status(id, "wait=60");
      expect(spy).toHaveBeenCalledTimes(1);
      expect(res.body).toMatchObject({ status: "completed", reply: "Once upon a time." });
    } finally {
      spy.mockRestore();
    }
  }, 30_000);

  it("when nothing finishes within the wait, then the record is answered as it stands", async () => {
    const { id } = (await submit()).body as { id: string };
    const res = await status(id, "wait=1");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "processing" });
    expect(res.headers["preference-applied"]).toBe("wait=1");
  });

  it("when the record is already final, then it is answered at once, and a wait over 60 s is applied as 60", async () => {
    const { id } = (await submit()).body as { id: string };
    await gw.deps.statuses.fail(id, "generation failed: test");
    const res = await status(id, "wait=600");
    expect(res.body).toEqual({ status: "error", error: "generation failed: test" });
    expect(res.headers["preference-applied"]).toBe("wait=60");
  });

  it("when a client waits, then that costs one request of its status budget", async () => {
    const { id } = (await submit()).body as { id: string };
    const before = Number((await status(id)).headers["x-ratelimit-remaining"]);
    const waited = await status(id, "wait=1");
    expect(Number(waited.headers["x-ratelimit-remaining"])).toBe(before - 1);
  });

  it("when the waiting client goes away, then the gateway stops waiting for it", async () => {
    const { id } = (await submit()).body as { id: string };
    const server: Server = gw.app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const req = get({
        port,
        host: "127.0.0.1",
        path: `/api/v2/status/${id}`,
        headers: { authorization: `Bearer ${key}`, prefer: "wait=60" },
      });
      req.on("error", () => undefined);
      await waitFor("the wait to be held", () => gw.deps.finalStatusWaits.waiting > 0, {
        timeoutMs: 5000,
        intervalMs: 20,
      });
      expect(gw.deps.finalStatusWaits.waiting).toBe(1);
      req.destroy();
      await waitFor("the wait to be let go", () => gw.deps.finalStatusWaits.waiting === 0, {
        timeoutMs: 5000,
        intervalMs: 20,
      });
    } finally {
      server.close();
    }
  });

  it("when there is no Prefer header, then nothing waits and no Preference-Applied is sent", async () => {
    const { id } = (await submit()).body as { id: string };
    const res = await status(id);
    expect(res.body).toMatchObject({ status: "processing" });
    expect(res.headers["preference-applied"]).toBeUndefined();
  });
});

describe("Prefer: wait on submit", () => {
  it("when no job finishes within the wait, then the answer is the usual {id, tokens: -1}", async () => {
    const res = await submit().set("Prefer", "wait=1");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: expect.any(String), tokens: -1 });
    expect(res.headers["preference-applied"]).toBe("wait=1");
  });

  describeWithModel("with a worker on the fixture model", () => {
    it("when the reply is ready within the wait, then submit answers with the finished record and its id", async () => {
      const prefix = uniquePrefix("prefer-wait-worker");
      const own = await startTestGateway(prefix);
      const engine = await loadFixtureEngine();
      const worker = await startTestWorker(prefix, engine);
      try {
        const ownKey = await own.createKey();
        const res = await request(own.app)
          .post("/api/text/default")
          .auth(ownKey, { type: "bearer" })
          .set("Prefer", "wait=30")
          .send(defaultRequest());
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({
          id: expect.any(String),
          status: "completed",
          reply: expect.any(String),
          tokens: expect.any(Number),
        });
        const polled = await request(own.app)
          .get(`/api/v2/status/${String(submittedId(res))}`)
          .auth(ownKey, { type: "bearer" });
        expect({ id: submittedId(res), ...polled.body }).toEqual(res.body);
      } finally {
        await worker.close();
        await engine.close();
        await own.close();
      }
    }, 60_000);
  });
});

describe("listening for a record to turn final", () => {
  it("when a wait is subscribed, then it has not waited yet: the finish that follows wakes it", async () => {
    const { id } = (await submit()).body as { id: string };
    const clientGone = new AbortController();
    const { subscribed, finished } = gw.deps.finalStatusWaits.listen(id, 30_000, clientGone.signal);
    await subscribed;
    // An unref'd timer: the race's loser must not hold jest open.
    const outcome = (wait: number) =>
      Promise.race([finished.then(() => "woken"), delay(wait, "still waiting", { ref: false })]);
    expect(await outcome(100)).toBe("still waiting");
    await gw.deps.statuses.complete(id, completion);
    expect(await outcome(10_000)).toBe("woken"); // well before the 30 s deadline
    clientGone.abort();
  });
});
