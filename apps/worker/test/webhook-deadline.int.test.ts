import { randomUUID } from "node:crypto";
import { QUEUES } from "@chorus/contracts";
import { createMetrics } from "@chorus/platform/metrics";
import { createWorkerRedis, redisKeys } from "@chorus/platform/redis";
import { Queue } from "bullmq";
import { createWebhookWorker } from "../src/webhooks/webhook-worker.js";
import { WebhookSender, WebhookTimeoutError } from "../src/webhooks/webhook-sender.js";
import { instrumentWorkers } from "../src/worker-metrics.js";
import { testLogger } from "../../../test-support/logger.js";
import { deleteKeysWithPrefix, TEST_REDIS, uniquePrefix } from "../../../test-support/redis.js";
import {
  deliveryEnd,
  startDribblingReceiver,
  webhookSecret,
  webhookWorkerOverrides,
  type DribblingReceiver,
} from "../../../test-support/webhooks.js";

/** WEBHOOK_TIMEOUT_MS of these tests; the receivers would take about 60 s to answer in full. */
const DEADLINE_MS = 500;
/** Far above the deadline and far below the receiver's minute: room for a loaded machine, not a timing. */
const GENEROUS_MS = 5000;

/** `promise`, or a failure naming `what` once GENEROUS_MS have passed (so a hang fails, not times out the suite). */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what} after ${GENEROUS_MS} ms`)), GENEROUS_MS)),
  );
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Every connection the receiver accepted is closed by the sender (undici's spare reconnect included). */
async function allClosed(receiver: DribblingReceiver): Promise<void> {
  await within(
    Promise.all(receiver.connections.map((connection) => connection.closed)),
    "a connection to the receiver was still open",
  );
}

describe("a webhook attempt's total deadline (WEBHOOK_TIMEOUT_MS)", () => {
  let receiver: DribblingReceiver | undefined;
  afterEach(() => receiver?.close());

  it.each(["headers", "body"] as const)(
    "when the receiver sends its %s a byte every 300 ms, then the attempt fails as a timeout at the deadline and its connection is closed",
    async (mode) => {
      receiver = await startDribblingReceiver(mode);
      const sender = new WebhookSender({ allowPrivate: true, timeoutMs: DEADLINE_MS });
      try {
        const attempt = sender.send(receiver.url("/slow"), "msg_deadline", "{}", [webhookSecret()]);
        const error = await within(
          attempt.then(
            () => null,
            (failure: unknown) => failure,
          ),
          "the attempt had not ended",
        );
        expect(error).toBeInstanceOf(WebhookTimeoutError);
        expect((error as Error).message).toBe(`timeout: no complete answer within ${DEADLINE_MS} ms`);
        expect(receiver.connections.filter((connection) => connection.requested)).toHaveLength(1);
        await allClosed(receiver);
      } finally {
        await sender.close();
      }
    },
  );

  it("when every attempt of a delivery times out, then each counts as a failed attempt, is retried, and the delivery fails after the last", async () => {
    const dribbling = await startDribblingReceiver("body");
    receiver = dribbling;
    const prefix = uniquePrefix("webhook-deadline");
    const hooks = webhookWorkerOverrides(prefix, {
      secret: webhookSecret(),
      allowPrivate: true,
      attempts: 2,
      backoffMs: 50,
      timeoutMs: DEADLINE_MS,
    });
    const connection = createWorkerRedis(TEST_REDIS);
    const keys = redisKeys(prefix);
    const statuses = hooks.overrides.statuses!;
    const worker = createWebhookWorker({
      connection,
      keys,
      statuses,
      logger: testLogger("worker"),
      ...hooks.overrides.webhooks!,
    });
    const metrics = createMetrics("worker");
    instrumentWorkers([worker], metrics);
    const deliveries = new Queue(QUEUES.webhooks, { connection, prefix: keys.bullPrefix(QUEUES.webhooks) });
    try {
      const id = randomUUID();
      const events = ["completed", "error", "cancelled"] as const;
      await statuses.create(id, "owner", "default", Date.now(), { url: dribbling.url("/slow"), events });
      await statuses.fail(id, "cancelled");
      expect(await within(deliveryEnd(deliveries, id), "the delivery had not ended")).toEqual({
        state: "failed",
        failedReason: `timeout: no complete answer within ${DEADLINE_MS} ms`,
      });
      expect((await deliveries.getJob(id))?.attemptsMade).toBe(2);
      const outcomes = (await metrics.registry.getSingleMetric("webhook_deliveries_total")!.get()).values.map((v) => [
        v.labels.outcome,
        v.value,
      ]);
      expect(Object.fromEntries(outcomes)).toEqual({ retried: 1, failed: 1 });
      expect(dribbling.connections.filter((connection) => connection.requested)).toHaveLength(2);
      await allClosed(dribbling);
    } finally {
      await worker.close();
      await deliveries.close();
      connection.disconnect();
      await hooks.close();
      await deleteKeysWithPrefix(TEST_REDIS, prefix);
    }
  });
});
