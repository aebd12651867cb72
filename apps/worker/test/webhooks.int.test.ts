import { QUEUES, type StatusRecord } from "@chorus/contracts";
import { createMetrics, type WorkerMetrics } from "@chorus/platform/metrics";
import { createWorkerRedis } from "@chorus/platform/redis";
import { Queue } from "bullmq";
import { Webhook } from "standardwebhooks";
import request from "supertest";
import type { LlmEngine } from "../src/engines/llm/llm-engine.js";
import { LOST_ERROR, LostJobSweeper } from "../src/records/lost-job.sweeper.js";
import { createWebhookWorker } from "../src/webhooks/webhook-worker.js";
import { instrumentWorkers } from "../src/worker-metrics.js";
import { defaultRequest, describeWithModel } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { testLogger } from "../../../test-support/logger.js";
import { TEST_REDIS, uniquePrefix } from "../../../test-support/redis.js";
import { errorOf, submittedId } from "../../../test-support/response-body.js";
import {
  deliveryEnd,
  NEVER_ANSWER,
  startWebhookReceiver,
  webhookSecret,
  webhookWorkerOverrides,
  type ReceivedWebhook,
  type WebhookReceiver,
} from "../../../test-support/webhooks.js";
import { loadFixtureEngine, startTestWorker, type TestWorker } from "../../../test-support/worker.js";
import { finalRecord } from "../../../test-support/records.js";

const SHORT = { ...defaultRequest(), samplingParams: { max_tokens: 12 } };
/** Keeps the fixture model busy for seconds: long enough to be cancelled while queued or running. */
const LONG = { ...defaultRequest(), samplingParams: { max_tokens: 2048, temperature: 1.5 } };
/** Short backoff (50, 100, 200 ms) so retries happen within the test; the production default is 30 s. */
const RETRIES = { attempts: 4, backoffMs: 50 };

/** A gateway and a worker on their own prefix, the worker delivering webhooks as main.ts sets it up. */
interface Stack {
  gw: TestGateway;
  worker: TestWorker;
  key: string;
  /** The key's id and its own webhook signing secret. */
  keyId: string;
  webhookSecret: string;
  deliveries: Queue;
  close(): Promise<void>;
}

async function startStack(
  engine: LlmEngine,
  secret: string,
  gatewayAllowsPrivate: boolean,
  workerAllowsPrivate: boolean,
  timeoutMs?: number,
): Promise<Stack> {
  const prefix = uniquePrefix("webhooks");
  const env = {
    WEBHOOK_SECRET: secret,
    WEBHOOK_ALLOW_PRIVATE: String(gatewayAllowsPrivate),
    WEBHOOK_ATTEMPTS: String(RETRIES.attempts),
    WEBHOOK_BACKOFF_MS: String(RETRIES.backoffMs),
  };
  const gw = await startTestGateway(prefix, env);
  const hooks = webhookWorkerOverrides(prefix, { secret, allowPrivate: workerAllowsPrivate, ...RETRIES, timeoutMs });
  const worker = await startTestWorker(prefix, engine, hooks.overrides);
  const deliveries = new Queue(QUEUES.webhooks, {
    connection: gw.deps.redis,
    prefix: gw.deps.keys.bullPrefix(QUEUES.webhooks),
  });
  const created = await gw.createKeyWithSecrets({ limits: { status: 100_000, text: 1000 } });
  return {
    gw,
    worker,
    key: created.key,
    keyId: created.id,
    webhookSecret: created.webhookSecret,
    deliveries,
    close: async () => {
      await deliveries.close();
      await worker.close();
      await hooks.close();
      await gw.close();
    },
  };
}

describeWithModel("webhooks: the final record POSTed, signed per Standard Webhooks, retried", () => {
  const secret = webhookSecret();
  let engine: LlmEngine;
  let receiver: WebhookReceiver;
  let stack: Stack;
  let metrics: WorkerMetrics;
  beforeAll(async () => {
    receiver = await startWebhookReceiver((path, nth) =>
      path === "/flaky"
        ? nth <= 2
          ? 503
          : 200
        : path === "/gone"
          ? 410
          : path === "/moved"
            ? 307
            : path === "/silent"
              ? NEVER_ANSWER
              : 204,
    );
    engine = await loadFixtureEngine();
    stack = await startStack(engine, secret, true, true);
    metrics = createMetrics("worker");
    instrumentWorkers(stack.worker.workers, metrics);
  }, 120_000);
  afterAll(async () => {
    await stack.close();
    await engine.close();
    await receiver.close();
  }, 60_000);

  const submit = async (body: object, s = stack) => {
    const res = await request(s.gw.app).post("/api/text/default").auth(s.key, { type: "bearer" }).send(body);
    expect(res.status).toBe(200);
    return submittedId(res);
  };
  const status = async (id: string) =>
    (await request(stack.gw.app).get(`/api/v2/status/${id}`).auth(stack.key, { type: "bearer" })).body as StatusRecord;
  const postsOf = (path: string, id: string): ReceivedWebhook[] =>
    receiver.on(path).filter((post) => post.headers["webhook-id"] === `msg_${id}`);
  const verified = (post: ReceivedWebhook, s = stack) =>
    new Webhook(s.webhookSecret).verify(post.body, post.headers as Record<string, string>);

  it("when a request completes, then its webhook receives exactly one delivery, verified with its key's own secret, carrying the final record, its id and the key's id", async () => {
    const id = await submit({ ...SHORT, webhook: receiver.url("/done") });
    expect(await deliveryEnd(stack.deliveries, id)).toEqual({ state: "completed", failedReason: undefined });
    const posts = postsOf("/done", id);
    expect(posts).toHaveLength(1);
    const [post] = posts as [ReceivedWebhook];
    expect(post.headers["content-type"]).toBe("application/json");
    const record = await status(id);
    expect(record.status).toBe("completed");
    expect(verified(post)).toEqual({ id, keyId: stack.keyId, ...record });
    // The signature covers the body: a changed byte fails verification.
    expect(() =>
      new Webhook(stack.webhookSecret).verify(
        post.body.replace(`"${id}"`, '"someone-else"'),
        post.headers as Record<string, string>,
      ),
    ).toThrow();
    expect(() => new Webhook(webhookSecret()).verify(post.body, post.headers as Record<string, string>)).toThrow();
    // Nor does the deployment's WEBHOOK_SECRET sign it: the key has its own.
    expect(() => new Webhook(secret).verify(post.body, post.headers as Record<string, string>)).toThrow();
  });

  it("when a request that asked for cancelled is cancelled, then its webhook receives exactly one delivery of the cancelled record", async () => {
    const events = ["completed", "error", "cancelled"];
    const cancel = async (id: string) =>
      (await request(stack.gw.app).delete(`/api/v2/status/${id}`).auth(stack.key, { type: "bearer" })).status;
    // The tiny model may sample its end of text within the first tokens and finish before the cancel
    // arrives (409): such a request is not the one this test is about, so another is sent.
    let id = "";
    for (let tries = 0; tries < 5 && !id; tries++) {
      const sent = await submit({ ...LONG, webhook: receiver.url("/cancelled"), webhookEvents: events });
      const answer = await cancel(sent);
      expect([200, 409]).toContain(answer);
      if (answer === 200) id = sent;
    }
    expect(id).not.toBe("");
    expect((await deliveryEnd(stack.deliveries, id)).state).toBe("completed");
    const posts = postsOf("/cancelled", id);
    expect(posts).toHaveLength(1);
    expect(verified(posts[0] as ReceivedWebhook)).toEqual({
      id,
      keyId: stack.keyId,
      status: "error",
      error: "cancelled",
      errorCode: "cancelled",
      finishReason: "cancelled",
    });
  });

  it("when a request that did not ask for cancelled is cancelled, then no delivery is queued for it", async () => {
    const id = await submit({ ...LONG, webhook: receiver.url("/cancelled-quietly") });
    const cancel = await request(stack.gw.app).delete(`/api/v2/status/${id}`).auth(stack.key, { type: "bearer" });
    expect(cancel.status).toBe(200);
    expect((await finalRecord(stack.gw.app, stack.key, id)).finishReason).toBe("cancelled");
    expect(await stack.deliveries.getJob(id)).toBeUndefined();
    expect(await stack.gw.deps.webhookTurns.pending(stack.keyId)).toBe(0);
    expect(receiver.on("/cancelled-quietly")).toHaveLength(0);
  });

  it("when the receiver fails twice and then answers 200, then it gets three attempts under one webhook-id and the delivery ends delivered", async () => {
    const counter = metrics.registry.getSingleMetric("webhook_deliveries_total");
    const count = async (outcome: string) =>
      (await counter!.get()).values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
    const [retriedBefore, deliveredBefore] = [await count("retried"), await count("delivered")];
    const id = await submit({ ...SHORT, webhook: receiver.url("/flaky") });
    expect((await deliveryEnd(stack.deliveries, id)).state).toBe("completed");
    const posts = postsOf("/flaky", id);
    expect(posts).toHaveLength(3);
    const payloads = posts.map((post) => verified(post));
    expect(payloads[0]).toMatchObject({ id, status: "completed" });
    expect(payloads[2]).toEqual(payloads[0]);
    expect([await count("retried"), await count("delivered")]).toEqual([retriedBefore + 2, deliveredBefore + 1]);
  });

  it("when the receiver answers 410 Gone, then there is no second attempt", async () => {
    const id = await submit({ ...SHORT, webhook: receiver.url("/gone") });
    const end = await deliveryEnd(stack.deliveries, id);
    expect(end.state).toBe("failed");
    expect(end.failedReason).toMatch(/^gone:/);
    expect(postsOf("/gone", id)).toHaveLength(1);
  });

  it("when the receiver redirects, then the redirect is not followed and every attempt fails", async () => {
    const id = await submit({ ...SHORT, webhook: receiver.url("/moved") });
    const end = await deliveryEnd(stack.deliveries, id);
    expect(end).toEqual({ state: "failed", failedReason: "the receiver answered 307" });
    expect(postsOf("/moved", id)).toHaveLength(RETRIES.attempts);
    expect(receiver.on("/moved-redirected")).toHaveLength(0);
  });

  it("when a request has no webhook, then nothing is queued for it", async () => {
    const id = await submit(SHORT);
    expect((await finalRecord(stack.gw.app, stack.key, id)).status).toBe("completed");
    expect(await stack.deliveries.getJob(id)).toBeUndefined();
  });

  it.each([
    ["not a URL", "not a url"],
    ["a relative URL", "/hooks/chorus"],
    ["an ftp URL", "ftp://example.com/hook"],
    ["a javascript: URL", "javascript:alert(1)"],
    ["a file URL", "file:///etc/passwd"],
    ["a URL with credentials", "https://user:secret@example.com/hook"],
    ["a URL over 2048 characters", `https://example.com/${"a".repeat(2048)}`],
    ["a number", 42],
    ["an empty string", ""],
  ])("when webhook is %s, then the submit is 400 INVALID_PARAMETER naming webhook", async (_label, webhook) => {
    const res = await request(stack.gw.app)
      .post("/api/text/default")
      .auth(stack.key, { type: "bearer" })
      .send({ ...SHORT, webhook });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: "INVALID_PARAMETER", details: { parameter: "webhook" } });
  });

  it("when the lost-job sweep closes a record whose job vanished, then its webhook receives the lost record", async () => {
    // A prefix without a text worker: the job waits until it is removed under its record.
    const prefix = uniquePrefix("webhooks-lost");
    const gw = await startTestGateway(prefix, { WEBHOOK_SECRET: secret, WEBHOOK_ALLOW_PRIVATE: "true" });
    const hooks = webhookWorkerOverrides(prefix, { secret, allowPrivate: true, ...RETRIES });
    const connection = createWorkerRedis(TEST_REDIS);
    const statuses = hooks.overrides.statuses!;
    const deliveryWorker = createWebhookWorker({
      connection,
      keys: gw.deps.keys,
      statuses,
      logger: testLogger("worker"),
      ...hooks.overrides.webhooks!,
    });
    const texts = new Queue(QUEUES.text, { connection, prefix: gw.deps.keys.bullPrefix(QUEUES.text) });
    const deliveries = new Queue(QUEUES.webhooks, { connection, prefix: gw.deps.keys.bullPrefix(QUEUES.webhooks) });
    try {
      const lostKey = await gw.createKeyWithSecrets();
      const res = await request(gw.app)
        .post("/api/text/default")
        .auth(lostKey.key, { type: "bearer" })
        .send({ ...SHORT, webhook: receiver.url("/lost") });
      const id = submittedId(res);
      expect(await texts.remove(id)).toBe(1);
      const sweep = new LostJobSweeper({
        connection,
        keys: gw.deps.keys,
        statuses,
        logger: testLogger("worker"),
        graceMs: 0,
        onLost: () => undefined,
      });
      expect(await sweep.sweepOnce()).toEqual({ lost: 1, failed: 0 });
      expect((await deliveryEnd(deliveries, id)).state).toBe("completed");
      const posts = postsOf("/lost", id);
      expect(posts).toHaveLength(1);
      const lostPost = posts[0] as ReceivedWebhook;
      const payload = new Webhook(lostKey.webhookSecret).verify(
        lostPost.body,
        lostPost.headers as Record<string, string>,
      );
      expect(payload).toEqual({ id, keyId: lostKey.id, status: "error", error: LOST_ERROR, errorCode: "lost" });
    } finally {
      await deliveryWorker.close();
      await Promise.all([texts.close(), deliveries.close()]);
      connection.disconnect();
      await hooks.close();
      await gw.close();
    }
  });

  describe("where the worker waits 300 ms for an answer", () => {
    let impatient: Stack;
    beforeAll(async () => {
      impatient = await startStack(engine, secret, true, true, 300);
    }, 60_000);
    afterAll(() => impatient.close(), 60_000);

    it("when the receiver never answers, then each attempt times out and the delivery fails after the last", async () => {
      const id = await submit({ ...SHORT, webhook: receiver.url("/silent") }, impatient);
      const end = await deliveryEnd(impatient.deliveries, id);
      expect(end.state).toBe("failed");
      expect(end.failedReason).toMatch(/timeout/i);
      expect(postsOf("/silent", id)).toHaveLength(RETRIES.attempts);
    });
  });

  describe("where the submit allowed it but the worker refuses private addresses", () => {
    let lax: Stack;
    beforeAll(async () => {
      lax = await startStack(engine, secret, true, false);
    }, 60_000);
    afterAll(() => lax.close(), 60_000);

    it("when the webhook's host name resolves to 127.0.0.1, then the delivery is refused at the first attempt and nothing is sent", async () => {
      const id = await submit({ ...SHORT, webhook: receiver.url("/rebound", "localhost") }, lax);
      const end = await deliveryEnd(lax.deliveries, id);
      expect(end.state).toBe("failed");
      expect(end.failedReason).toMatch(/^refused: localhost resolves to (127\.0\.0\.1|::1)/);
      expect(receiver.on("/rebound")).toHaveLength(0);
    });

    it("when the webhook's host is a loopback address, then the delivery is refused and nothing is sent", async () => {
      const id = await submit({ ...SHORT, webhook: receiver.url("/literal") }, lax);
      const end = await deliveryEnd(lax.deliveries, id);
      expect(end.state).toBe("failed");
      expect(end.failedReason).toMatch(/^refused:/);
      expect(receiver.on("/literal")).toHaveLength(0);
    });
  });
});
