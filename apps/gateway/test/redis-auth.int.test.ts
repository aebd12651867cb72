import request from "supertest";
import { startPrivateRedis, type PrivateRedis } from "@chorus/local-runtime";
import { defaultRequest } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";

/** A Redis that requires a password, reached through a URL with credentials. */
describe("a Redis with a password", () => {
  let redis: PrivateRedis;
  let gw: TestGateway;
  beforeAll(async () => {
    redis = await startPrivateRedis(["--requirepass", "s3cret-pass"]);
  });
  afterAll(async () => {
    await gw?.close({ keepKeys: true }); // a private Redis, stopped next: nothing to clean up
    await redis.stop();
  });

  it("when REDIS_URL carries the password, then the gateway works end to end", async () => {
    const url = redis.url.replace("redis://", "redis://:s3cret-pass@");
    gw = await startTestGateway("auth-redis", {}, url);
    const key = await gw.createKey();
    const res = await request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).send(defaultRequest());
    expect(res.status).toBe(200);
    expect((await request(gw.app).get("/readyz")).status).toBe(200);
  });
});
