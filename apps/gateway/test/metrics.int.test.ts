import type { ErrorEnvelope } from "@chorus/contracts";
import { createMetrics, readQueueDepths, type GatewayMetrics } from "@chorus/platform/metrics";
import { createTextQueue } from "@chorus/platform/queues";
import type { Queue } from "bullmq";
import express, { type Express } from "express";
import request from "supertest";
import { defaultRequest } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { testLogger } from "../../../test-support/logger.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { redisConnections } from "../src/app.js";
import { errorHandler } from "../src/middleware/error-handler.js";
import { requestContext } from "../src/middleware/request-context.js";
import { addMetricsRoute } from "../src/routes/metrics.route.js";

const TOKEN = "metrics-token-for-tests-0123456789";

let gw: TestGateway;
let queue: Queue;
let metrics: GatewayMetrics;
let open: Express;
let guarded: Express;

/**
 * The real gateway app inside a wrapper that mounts the middleware and route as app.ts does:
 * the request context (which records the metrics) first, /metrics without an API key, the error
 * handler last.
 */
function wrap(token: string | undefined): Express {
  const app = express();
  app.use(requestContext(testLogger("gateway"), metrics));
  addMetricsRoute(app, metrics, token);
  app.use(gw.app);
  app.use(errorHandler(redisConnections(gw.deps)));
  return app;
}

/** The value of one sample line of the exposition. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const requests = (method: string, route: string, status: number) =>
  `http_requests_total{method="${method}",route="${route}",status="${status}"}`;

beforeAll(async () => {
  gw = await startTestGateway(uniquePrefix("metrics"));
  queue = createTextQueue(gw.deps.redis, gw.deps.keys);
  metrics = createMetrics("gateway", { queueDepth: readQueueDepths([queue]) });
  open = wrap(undefined);
  guarded = wrap(TOKEN);
});
afterAll(async () => {
  await queue.close();
  await gw.close();
});

describe("gateway metrics", () => {
  it("when requests of every kind pass, then /metrics counts and times them by route pattern and status, never by URL", async () => {
    const key = await gw.createKey();
    const limited = await gw.createKey({ limits: { text: 1 } });
    const post = (path: string, secret: string, body: object) =>
      request(open).post(path).auth(secret, { type: "bearer" }).send(body);

    expect((await post("/api/text/default", key, defaultRequest())).status).toBe(200);
    expect((await post("/api/text/Witch", key, {})).status).toBe(400);
    expect((await post("/api/text/Nobody", key, {})).status).toBe(404);
    expect((await post("/api/text/default", limited, defaultRequest())).status).toBe(200);
    expect((await post("/api/text/default", limited, defaultRequest())).status).toBe(429);
    expect((await request(open).get("/no/such/path-12345").auth(key, { type: "bearer" })).status).toBe(404);
    expect((await request(open).get("/api/v2/status/abc").auth(key, { type: "bearer" })).status).toBe(404);
    expect((await request(open).get("/api/status/abc").auth(key, { type: "bearer" })).status).toBe(404);
    expect((await request(open).get("/api/voices")).status).toBe(401);
    expect((await request(open).get("/no/such/path-67890")).status).toBe(401);
    expect((await request(open).get("/healthz")).status).toBe(200);

    const res = await request(open).get("/metrics");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.text;
    expect(sample(text, requests("POST", "/api/text/:model", 200))).toBe(2);
    expect(sample(text, requests("POST", "/api/text/:model", 400))).toBe(1);
    expect(sample(text, requests("POST", "/api/text/:model", 404))).toBe(1);
    expect(sample(text, requests("POST", "/api/text/:model", 429))).toBe(1);
    // The twin status paths stay apart; a failed authentication counts under its route; unknown
    // paths are "unmatched" whether the caller had a key (404) or not (401).
    expect(sample(text, requests("GET", "/api/v2/status/:id", 404))).toBe(1);
    expect(sample(text, requests("GET", "/api/status/:id", 404))).toBe(1);
    expect(sample(text, requests("GET", "/api/voices", 401))).toBe(1);
    expect(sample(text, requests("GET", "unmatched", 404))).toBe(1);
    expect(sample(text, requests("GET", "unmatched", 401))).toBe(1);
    expect(sample(text, requests("GET", "/healthz", 200))).toBe(1);
    expect(text).not.toContain("path-12345");
    expect(text).not.toContain("path-67890");
    expect(text).not.toContain("/abc");
    expect(
      sample(text, 'http_request_duration_seconds_count{method="POST",route="/api/text/:model",status="200"}'),
    ).toBe(2);
    expect(
      sample(
        text,
        'http_request_duration_seconds_bucket{le="+Inf",method="POST",route="/api/text/:model",status="429"}',
      ),
    ).toBe(1);
    // Nothing consumes this prefix's queue: both accepted jobs are waiting.
    expect(sample(text, 'queue_depth{queue="text-generation",state="waiting"}')).toBe(2);
    expect(sample(text, 'queue_depth{queue="text-generation",state="active"}')).toBe(0);
    // The scrape itself (the exact-path RegExp route) is labelled with its path.
    expect(sample((await request(open).get("/metrics")).text, requests("GET", "/metrics", 200))).toBe(1);
  });

  it("when the rate limiter reports a rejection, then rate_limit_rejections_total counts it by operation", async () => {
    // The limiter's handler calls this once the lead adds the hook (see rate-limit.ts); here the API directly.
    metrics.recordRateLimitRejection("text");
    metrics.recordRateLimitRejection("text");
    metrics.recordRateLimitRejection("auth-failures");
    const text = (await request(open).get("/metrics")).text;
    expect(sample(text, 'rate_limit_rejections_total{operation="text"}')).toBe(2);
    expect(sample(text, 'rate_limit_rejections_total{operation="auth-failures"}')).toBe(1);
  });

  it("when METRICS_TOKEN is set, then /metrics needs it as a Bearer token and refuses others with 401 in the error envelope", async () => {
    const missing = await request(guarded).get("/metrics");
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ error: { code: "UNAUTHORIZED" }, status: "error" });
    expect(typeof (missing.body as ErrorEnvelope).timestamp).toBe("string");
    const apiKey = await gw.createKey();
    expect((await request(guarded).get("/metrics").auth(apiKey, { type: "bearer" })).status).toBe(401);
    const ok = await request(guarded).get("/metrics").auth(TOKEN, { type: "bearer" });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain("http_requests_total");
  });

  it("when /metrics is asked with other casing or a trailing slash, then the metrics route does not answer", async () => {
    for (const path of ["/METRICS", "/metrics/"]) {
      const res = await request(open).get(path);
      expect(res.status).toBe(401);
      expect(res.text).not.toContain("http_requests_total");
    }
  });
});
