import request from "supertest";
import { defaultRequest } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway(uniquePrefix("ratelimit"));
});
afterAll(() => gw.close());

const submit = (key: string, model = "default") =>
  request(gw.app).post(`/api/text/${model}`).auth(key, { type: "bearer" }).send(defaultRequest());

async function submitMany(key: string, count: number, model = "default") {
  const statuses: number[] = [];
  let last: request.Response | undefined;
  for (let i = 0; i < count; i++) {
    last = await submit(key, model);
    statuses.push(last.status);
  }
  return { statuses, last: last as request.Response };
}

describe("rate limits", () => {
  it("when a key sends 101 text requests to one model, then the first 100 pass and the 101st is 429 with Retry-After", async () => {
    const key = await gw.createKey();
    const { statuses, last } = await submitMany(key, 101);
    expect(statuses.slice(0, 100).every((s) => s === 200)).toBe(true);
    expect(statuses[100]).toBe(429);
    expect(last.body).toMatchObject({ error: { code: "RATE_LIMITED" }, status: "error" });
    expect(Number(last.headers["retry-after"])).toBeGreaterThan(0);
    expect(last.headers["x-ratelimit-remaining"]).toBe("0");

    // Each model has its own budget.
    const other = await request(gw.app).post("/api/text/Witch").auth(key, { type: "bearer" }).send({});
    expect(other.status).toBe(400);
    expect(other.headers["x-ratelimit-remaining"]).toBe("99");
  });

  it("when a response is sent, then it carries X-RateLimit-Limit, -Remaining and -Reset in epoch seconds", async () => {
    const key = await gw.createKey();
    const before = Math.floor(Date.now() / 1000);
    const res = await submit(key);
    expect(res.headers["x-ratelimit-limit"]).toBe("100");
    expect(res.headers["x-ratelimit-remaining"]).toBe("99");
    const reset = Number(res.headers["x-ratelimit-reset"]);
    expect(reset).toBeGreaterThanOrEqual(before + 59);
    expect(reset).toBeLessThanOrEqual(before + 61);
  });

  it("when both status paths are polled, then they share one budget of 200", async () => {
    const key = await gw.createKey();
    const first = await request(gw.app).get("/api/v2/status/abc").auth(key, { type: "bearer" });
    const second = await request(gw.app).get("/api/status/abc").auth(key, { type: "bearer" });
    expect(first.headers["x-ratelimit-limit"]).toBe("200");
    expect(first.headers["x-ratelimit-remaining"]).toBe("199");
    expect(second.headers["x-ratelimit-remaining"]).toBe("198");
  });

  it("when a key has its own limits, then they replace the configured ones for that key only", async () => {
    const key = await gw.createKey({ limits: { text: 3, status: 2 } });
    const { statuses } = await submitMany(key, 4);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const status = await request(gw.app).get("/api/v2/status/abc").auth(key, { type: "bearer" });
    expect(status.headers["x-ratelimit-limit"]).toBe("2");
  });

  it("when a key sends 61 speech requests, then the 61st is 429 (invalid bodies still count)", async () => {
    const key = await gw.createKey();
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++)
      statuses.push(
        (
          await request(gw.app)
            .post(i % 2 ? "/api/tts" : "/api/audio/full")
            .auth(key, { type: "bearer" })
            .send({ format: "aac" })
        ).status,
      );
    expect(statuses.slice(0, 60).every((s) => s === 400)).toBe(true);
    expect(statuses[60]).toBe(429);
  });

  it("when two gateways share one Redis, then a key's budget holds exactly across both", async () => {
    const second = await startTestGateway(gw.prefix);
    try {
      const key = await gw.createKey({ limits: { text: 10 } });
      const apps = [gw.app, second.app];
      const statuses = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          request(apps[i % 2]!)
            .post("/api/text/default")
            .auth(key, { type: "bearer" })
            .send(defaultRequest())
            .then((r) => r.status),
        ),
      );
      expect(statuses.filter((s) => s === 200)).toHaveLength(10);
      expect(statuses.filter((s) => s === 429)).toHaveLength(6);
    } finally {
      await second.close({ keepKeys: true });
    }
  });
});
