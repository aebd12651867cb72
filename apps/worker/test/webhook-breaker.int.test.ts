import { createMetrics } from "@chorus/platform/metrics";
import request from "supertest";
import { instrumentWorkers } from "../src/worker-metrics.js";
import { startTestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { waitFor } from "../../../test-support/wait-for.js";
import {
  deliveryEnd,
  finishWithWebhook,
  startDeliveryWorker,
  startWebhookReceiver,
} from "../../../test-support/webhooks.js";

const ADMIN_TOKEN = "admin-token-for-the-breaker-test";

interface AddressState {
  address: string;
  state: string;
  consecutiveFailures: number;
}

describe("a webhook address that keeps failing is paused for its key (circuit breaker)", () => {
  it("when a receiver fails twice in a row, then its address is paused for that key only, shown in the admin API and counted, and a successful trial after the pause closes it", async () => {
    let up = false;
    const receiver = await startWebhookReceiver((path) => (path === "/down" && !up ? 503 : 204));
    const prefix = uniquePrefix("webhook-breaker");
    const gw = await startTestGateway(prefix, { ADMIN_TOKEN });
    const stack = startDeliveryWorker(prefix, { attempts: 20, breaker: { failures: 2, pauseMs: 3000 } });
    const { statuses, deliveries } = stack;
    const metrics = createMetrics("worker");
    instrumentWorkers([stack.worker], metrics);
    const addresses = async (keyId: string) =>
      (
        (await request(gw.app).get(`/admin/keys/${keyId}/webhooks`).auth(ADMIN_TOKEN, { type: "bearer" })).body as {
          addresses: AddressState[];
        }
      ).addresses;
    const count = async (name: string, label: string, value: string) =>
      (await metrics.registry.getSingleMetric(name)!.get()).values.find((v) => v.labels[label] === value)?.value ?? 0;
    try {
      const [a, b] = [await gw.createKeyWithSecrets(), await gw.createKeyWithSecrets()];
      await finishWithWebhook(statuses, "a-1", a.id, receiver.url("/down"));
      const paused = await waitFor("A's address to be paused", async () => {
        const [state] = await addresses(a.id);
        return state?.state === "paused" ? state : undefined;
      });
      expect(paused).toMatchObject({ address: new URL(receiver.url("/")).origin, consecutiveFailures: 2 });
      expect(await count("webhook_breaker_changes_total", "to", "paused")).toBe(1);
      // While paused, A's attempts fail at once without a POST; B's delivery to the same address goes out.
      await waitFor(
        "an attempt of A to fail as paused",
        async () => (await count("webhook_deliveries_total", "outcome", "paused")) > 0 || undefined,
      );
      expect(receiver.on("/down")).toHaveLength(2);
      up = true;
      await finishWithWebhook(statuses, "b-1", b.id, receiver.url("/down"));
      expect((await deliveryEnd(deliveries, "b-1")).state).toBe("completed");
      expect(await addresses(b.id)).toEqual([]);
      // After the pause, one trial: it succeeds, the breaker closes, the delivery ends delivered.
      expect((await deliveryEnd(deliveries, "a-1")).state).toBe("completed");
      expect(await addresses(a.id)).toEqual([]);
      expect(await count("webhook_breaker_changes_total", "to", "closed")).toBe(1);
      expect(receiver.on("/down").filter((post) => post.headers["webhook-id"] === "msg_a-1")).toHaveLength(3);
    } finally {
      await stack.close();
      await receiver.close();
      await gw.close();
    }
  });
});
