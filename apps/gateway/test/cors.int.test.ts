import OpenAI from "openai";
import request from "supertest";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";

const ALLOWED = "https://app.example.com";

const preflight = (gw: TestGateway, origin: string, path = "/api/v2/requests") =>
  request(gw.app)
    .options(path)
    .set("Origin", origin)
    .set("Access-Control-Request-Method", "GET")
    .set("Access-Control-Request-Headers", "authorization,prefer");

describe("CORS off (the default)", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(uniquePrefix("cors-off"));
  });
  afterAll(() => gw.close());

  it("when a browser origin calls or preflights, then no CORS header is sent", async () => {
    const key = await gw.createKey();
    const call = await request(gw.app).get("/api/v2/requests").set("Origin", ALLOWED).auth(key, { type: "bearer" });
    expect(call.status).toBe(200);
    const asked = await preflight(gw, ALLOWED);
    for (const res of [call, asked]) {
      expect(Object.keys(res.headers).filter((name) => name.startsWith("access-control-"))).toEqual([]);
    }
    expect(asked.status).toBe(401);
  });
});

describe("CORS_ORIGINS with a list of origins", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(uniquePrefix("cors-on"), {
      CORS_ORIGINS: `${ALLOWED}, http://localhost:5173`,
      AUTH_FAILURE_LIMIT: "2",
    });
  });
  afterAll(() => gw.close());

  it("when an allowed origin preflights without a key, then it is 204 with the allowed methods, headers and max-age", async () => {
    const res = await preflight(gw, "http://localhost:5173", "/api/text/default");
    expect(res.status).toBe(204);
    expect(res.headers["access-control-allow-origin"]).toBe("http://localhost:5173");
    expect(res.headers["access-control-allow-methods"]).toBe("GET,HEAD,POST,DELETE");
    expect(res.headers["access-control-allow-headers"]).toBe(
      "Authorization,Content-Type,Idempotency-Key,Prefer,Last-Event-ID,Accept",
    );
    expect(res.headers["access-control-max-age"]).toBe("600");
    expect(res.headers.vary).toMatch(/Origin/);
  });

  it("when the openai SDK in a browser preflights /v1/chat/completions, then every header it sends is allowed", async () => {
    // The headers the SDK really sends, caught before they leave (its fetch), as a browser would list them.
    let sent: Headers | undefined;
    const sdk = new OpenAI({
      apiKey: "ck_test",
      baseURL: "http://gateway.invalid/v1",
      dangerouslyAllowBrowser: true,
      maxRetries: 0,
      fetch: (_url, init) => {
        sent = new Headers(init?.headers);
        return Promise.resolve(new Response("{}", { status: 500 }));
      },
    });
    await sdk.chat.completions
      .create({ model: "default", messages: [{ role: "user", content: "Hi" }] })
      .catch(() => {});
    const requested = [...(sent?.keys() ?? [])].filter((name) => !["accept", "content-length"].includes(name));
    expect(requested).toEqual(expect.arrayContaining(["authorization", "content-type", "x-stainless-lang"]));
    const res = await request(gw.app)
      .options("/v1/chat/completions")
      .set("Origin", ALLOWED)
      .set("Access-Control-Request-Method", "POST")
      .set("Access-Control-Request-Headers", requested.join(","));
    expect(res.status).toBe(204);
    const allowed = String(res.headers["access-control-allow-headers"]).toLowerCase().split(",");
    expect(requested.filter((name) => !allowed.includes(name))).toEqual([]);
    expect(String(res.headers["access-control-expose-headers"])).toContain("X-Should-Retry");
  });

  it("when a preflight asks for a header that is neither the API's nor the SDKs', then it is not allowed", async () => {
    const res = await request(gw.app)
      .options("/v1/chat/completions")
      .set("Origin", ALLOWED)
      .set("Access-Control-Request-Method", "POST")
      .set("Access-Control-Request-Headers", "authorization,x-forwarded-for");
    expect(String(res.headers["access-control-allow-headers"]).toLowerCase().split(",")).not.toContain(
      "x-forwarded-for",
    );
  });

  it("when an origin not in the list preflights or calls, then it gets no Access-Control-Allow-Origin", async () => {
    const key = await gw.createKey();
    const asked = await preflight(gw, "https://evil.example.net");
    const call = await request(gw.app)
      .get("/api/v2/requests")
      .set("Origin", "https://evil.example.net")
      .auth(key, { type: "bearer" });
    expect(asked.headers["access-control-allow-origin"]).toBeUndefined();
    expect(call.status).toBe(200);
    expect(call.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("when an allowed origin calls the API, then the response names it and exposes the rate-limit headers", async () => {
    const key = await gw.createKey({ limits: { status: 3 } });
    const ok = await request(gw.app).get("/api/v2/requests").set("Origin", ALLOWED).auth(key, { type: "bearer" });
    expect(ok.status).toBe(200);
    expect(ok.headers["access-control-allow-origin"]).toBe(ALLOWED);
    const exposed = String(ok.headers["access-control-expose-headers"]).split(",");
    expect(exposed).toEqual(
      expect.arrayContaining([
        "X-RateLimit-Limit",
        "X-RateLimit-Remaining",
        "X-RateLimit-Reset",
        "Retry-After",
        "Preference-Applied",
        "Content-Type",
      ]),
    );
    for (const name of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"])
      expect(ok.headers[name]).toBeDefined();

    // An error answer (here a 429) carries the headers too, so a browser can read Retry-After.
    await request(gw.app).get("/api/v2/requests").auth(key, { type: "bearer" });
    await request(gw.app).get("/api/v2/requests").auth(key, { type: "bearer" });
    const limited = await request(gw.app).get("/api/v2/requests").set("Origin", ALLOWED).auth(key, { type: "bearer" });
    expect(limited.status).toBe(429);
    expect(limited.headers["access-control-allow-origin"]).toBe(ALLOWED);
    expect(limited.headers["retry-after"]).toBeDefined();
  });

  it("when preflights are sent, then they consume neither the key's status budget nor the address's failed-authentication budget", async () => {
    const key = await gw.createKey({ limits: { status: 10 } });
    const first = await request(gw.app).get("/api/v2/requests").auth(key, { type: "bearer" });
    expect(first.headers["x-ratelimit-remaining"]).toBe("9");
    for (let i = 0; i < 5; i++) expect((await preflight(gw, ALLOWED)).status).toBe(204);
    const second = await request(gw.app).get("/api/v2/requests").auth(key, { type: "bearer" });
    expect(second.headers["x-ratelimit-remaining"]).toBe("8");
    // AUTH_FAILURE_LIMIT is 2 here: five preflights counted as failures would make this a 429.
    expect((await request(gw.app).get("/api/v2/requests").auth("not-a-key", { type: "bearer" })).status).toBe(401);
  });
});

describe("CORS_ORIGINS=*", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(uniquePrefix("cors-any"), { CORS_ORIGINS: "*" });
  });
  afterAll(() => gw.close());

  it("when any origin preflights, then it is allowed with *", async () => {
    const res = await preflight(gw, "https://anywhere.example.org");
    expect(res.status).toBe(204);
    expect(res.headers["access-control-allow-origin"]).toBe("*");
  });
});
