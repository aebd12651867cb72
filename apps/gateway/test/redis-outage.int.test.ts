import type { SubmitResponse } from "@chorus/contracts";
import request from "supertest";
import { startPrivateRedis, type PrivateRedis } from "@chorus/local-runtime";
import { defaultRequest } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { waitFor } from "../../../test-support/wait-for.js";

/** A private redis-server, because this test stops and restarts it. */
let redis: PrivateRedis;
let gw: TestGateway;
let key: string;
beforeAll(async () => {
  redis = await startPrivateRedis();
  gw = await startTestGateway("outage", {}, redis.url);
  key = await gw.createKey();
});
afterAll(async () => {
  await gw.close({ keepKeys: true }); // a private Redis, stopped next: nothing to clean up
  await redis.stop();
});

const port = () => Number(new URL(redis.url).port);
const submit = () =>
  request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).timeout(5000).send(defaultRequest());
const poll = () => request(gw.app).get("/api/v2/status/x").auth(key, { type: "bearer" }).timeout(5000);

async function untilStatus(send: () => Promise<request.Response>, status: number, timeoutMs = 10_000) {
  return waitFor(
    `an answer ${status}`,
    async () => {
      const res = await send();
      return res.status === status ? res : undefined;
    },
    { timeoutMs, intervalMs: 100 },
  );
}

describe("when Redis goes away", () => {
  it("then submits and polls answer 503 in the envelope (no hang, no crash), and recover when Redis returns", async () => {
    expect((await submit()).status).toBe(200);
    await redis.stop();

    for (const send of [submit, poll]) {
      const res = await untilStatus(send, 503);
      expect(res.body).toMatchObject({ error: { code: "SERVICE_UNAVAILABLE" }, status: "error" });
      expect(res.headers["retry-after"]).toBe("1");
    }
    const ready = await request(gw.app).get("/readyz");
    expect(ready.status).toBe(503);

    // Same port, empty data set: the key is gone, so recovery shows as 401 from a live Redis, then
    // a new key works end to end (rate-limit scripts reloaded, queue reconnected).
    redis = await startPrivateRedis([], { port: port() });
    await untilStatus(poll, 401);
    key = await gw.createKey();
    const res = await untilStatus(submit, 200);
    expect((res.body as SubmitResponse).tokens).toBe(-1);
    expect((await request(gw.app).get("/readyz")).status).toBe(200);
  });
});
