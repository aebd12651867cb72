import { deleteKeysWithPrefix, TEST_REDIS, uniquePrefix } from "../../../test-support/redis.js";
import { waitFor } from "../../../test-support/wait-for.js";
import {
  deliveryEnd,
  finishWithWebhook,
  startFakeDnsServer,
  startGatedReceiver,
  startDeliveryWorker,
  startWebhookReceiver,
  type WebhookWorkerSettings,
} from "../../../test-support/webhooks.js";

/** The real delivery worker on a prefix of its own, and a way to make keys there. */
function startDeliveries(settings: Partial<WebhookWorkerSettings>) {
  const prefix = uniquePrefix("webhook-turns");
  const stack = startDeliveryWorker(prefix, settings);
  return {
    ...stack,
    newKey: async (name: string) => (await stack.apiKeys.create(name, ["*"])).record.id,
    close: async () => {
      await stack.close();
      await deleteKeysWithPrefix(TEST_REDIS, prefix);
    },
  };
}

describe("webhook deliveries take turns between API keys", () => {
  it("when key A has 200 deliveries pending to a slow receiver, then key B's one delivery goes out after at most one of A's per busy slot", async () => {
    const SLOTS = 2;
    const receiver = await startGatedReceiver();
    const stack = startDeliveries({ concurrency: SLOTS, timeoutMs: 60_000 });
    try {
      const [a, b] = [await stack.newKey("a"), await stack.newKey("b")];
      for (let i = 0; i < 200; i++) await finishWithWebhook(stack.statuses, `a-${i}`, a, receiver.url("/a"));
      expect(await stack.turns.pending(a)).toBe(200);
      await waitFor("every slot busy with A's deliveries", () => receiver.held() === SLOTS || undefined);
      const before = receiver.arrivals.length;
      await finishWithWebhook(stack.statuses, "b-1", b, receiver.url("/b"));
      // Each release frees a slot for the next delivery in turn; FIFO would send A's other 198 first.
      for (let released = 0; !receiver.arrivals.includes("/b") && released < 10; released++) {
        const arrived = receiver.arrivals.length;
        receiver.releaseOne();
        await waitFor(
          "the freed slot to take the next delivery",
          () => receiver.arrivals.length > arrived || undefined,
        );
      }
      const ofAFirst = receiver.arrivals.slice(before).indexOf("/b");
      expect(ofAFirst).toBeGreaterThanOrEqual(0);
      expect(ofAFirst).toBeLessThanOrEqual(SLOTS);
      while (receiver.held() > 0) receiver.releaseOne();
      expect((await deliveryEnd(stack.deliveries, "b-1")).state).toBe("completed");
      await waitFor(
        "B's delivery to stop counting as pending",
        async () => (await stack.turns.pending(b)) === 0 || undefined,
      );
      expect(await stack.turns.pending(a)).toBeLessThan(200);
    } finally {
      await receiver.close();
      await stack.close();
    }
  });
});

describe("a webhook delivery's retry", () => {
  it("when an attempt fails, then its retry waits behind the deliveries its key queued meanwhile", async () => {
    const receiver = await startGatedReceiver();
    const stack = startDeliveries({ concurrency: 1, attempts: 2, backoffMs: 50, timeoutMs: 60_000 });
    const nextArrival = async (count: number) =>
      waitFor(`arrival ${count}`, () => receiver.arrivals.length >= count || undefined);
    try {
      const key = await stack.newKey("k");
      await finishWithWebhook(stack.statuses, "a-1", key, receiver.url("/a1"));
      await nextArrival(1);
      await finishWithWebhook(stack.statuses, "a-2", key, receiver.url("/a2"));
      await finishWithWebhook(stack.statuses, "a-3", key, receiver.url("/a3"));
      receiver.releaseOne(503);
      await nextArrival(2);
      // a-1's retry is due before the slot frees (its 50 ms backoff was set before it shows as delayed):
      // the next fetch promotes it, and the turn decides between it and a-3.
      await waitFor(
        "a-1's retry to be scheduled",
        async () => (await stack.deliveries.getJobState("a-1")) === "delayed" || undefined,
      );
      const due = Date.now() + 50;
      await waitFor("a-1's backoff to pass", () => Date.now() > due || undefined);
      receiver.releaseOne();
      await nextArrival(3);
      receiver.releaseOne();
      await nextArrival(4);
      receiver.releaseOne();
      expect(receiver.arrivals).toEqual(["/a1", "/a2", "/a3", "/a1"]);
      expect((await deliveryEnd(stack.deliveries, "a-1")).state).toBe("completed");
    } finally {
      await receiver.close();
      await stack.close();
    }
  });
});

describe("a webhook host's DNS lookup has its own deadline, off the thread pool", () => {
  it("when a host's DNS servers never answer, then other deliveries go out meanwhile and that one fails at the lookup's deadline", async () => {
    const DNS_DEADLINE_MS = 3000;
    const dns = await startFakeDnsServer({ "fast.test": "127.0.0.1" });
    const receiver = await startWebhookReceiver(() => 204);
    const port = new URL(receiver.url("/")).port;
    const stack = startDeliveries({
      concurrency: 6,
      timeoutMs: 30_000,
      dns: { servers: [dns.address], timeoutMs: DNS_DEADLINE_MS },
    });
    try {
      const key = await stack.newKey("k");
      // More lookups hanging than libuv has threads (4 by default, the worker runs with 1).
      const silent = ["s1", "s2", "s3", "s4", "s5"];
      for (const id of silent)
        await finishWithWebhook(stack.statuses, id, key, `http://${id}.silent.test:${port}/silent`);
      await waitFor(
        "the silent lookups to start",
        async () => (await stack.deliveries.getActiveCount()) === silent.length || undefined,
      );
      await finishWithWebhook(stack.statuses, "fast", key, `http://fast.test:${port}/fast`);
      expect((await deliveryEnd(stack.deliveries, "fast")).state).toBe("completed");
      expect(receiver.on("/fast")).toHaveLength(1);
      const states = await Promise.all(silent.map((id) => stack.deliveries.getJobState(id)));
      expect(states).toEqual(silent.map(() => "active"));
      for (const id of silent)
        expect(await deliveryEnd(stack.deliveries, id)).toEqual({
          state: "failed",
          failedReason: `dns: no answer for ${id}.silent.test within ${DNS_DEADLINE_MS} ms`,
        });
      expect(receiver.on("/silent")).toHaveLength(0);
    } finally {
      await receiver.close();
      await dns.close();
      await stack.close();
    }
  });
});
