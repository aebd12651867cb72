import { Webhook } from "standardwebhooks";
import { deleteKeysWithPrefix, TEST_REDIS, uniquePrefix } from "../../../test-support/redis.js";
import {
  deliveryEnd,
  finishWithWebhook,
  startDeliveryWorker,
  startWebhookReceiver,
  webhookSecret,
  type ReceivedWebhook,
  type WebhookReceiver,
} from "../../../test-support/webhooks.js";

const verify = (secret: string, post: ReceivedWebhook) =>
  new Webhook(secret).verify(post.body, post.headers as Record<string, string>) as { keyId: string };

describe("webhooks signed per API key", () => {
  const prefix = uniquePrefix("webhook-tenants");
  const deploymentSecret = webhookSecret();
  const { keys, connection, apiKeys, statuses, deliveries, close } = startDeliveryWorker(prefix, {
    secret: deploymentSecret,
  });
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver(() => 204);
  });
  afterAll(async () => {
    await close();
    await receiver.close();
    await deleteKeysWithPrefix(TEST_REDIS, prefix);
  });

  /** The one POST of `id`'s delivery, once it has ended delivered. */
  async function deliveredPost(id: string): Promise<ReceivedWebhook> {
    expect((await deliveryEnd(deliveries, id)).state).toBe("completed");
    const posts = receiver.received.filter((post) => post.headers["webhook-id"] === `msg_${id}`);
    expect(posts).toHaveLength(1);
    return posts[0] as ReceivedWebhook;
  }

  it("when tenant B aims a request at tenant A's receiver, then A's receiver, verifying with A's secret, rejects it, and the body names B's key", async () => {
    const a = await apiKeys.create("tenant-a", ["*"]);
    const b = await apiKeys.create("tenant-b", ["*"]);
    await finishWithWebhook(statuses, "from-a", a.record.id, receiver.url("/tenant-a"));
    await finishWithWebhook(statuses, "from-b", b.record.id, receiver.url("/tenant-a"));
    const fromA = await deliveredPost("from-a");
    const fromB = await deliveredPost("from-b");
    expect(verify(a.webhookSecret, fromA).keyId).toBe(a.record.id);
    expect(() => verify(a.webhookSecret, fromB)).toThrow();
    expect(verify(b.webhookSecret, fromB).keyId).toBe(b.record.id);
    // Neither is signed with the deployment's WEBHOOK_SECRET, which older keys share.
    expect(() => verify(deploymentSecret, fromA)).toThrow();
    expect(() => verify(deploymentSecret, fromB)).toThrow();
  });

  it("when a key's secret is rotated with an overlap, then deliveries carry both signatures during it, and only the new one's after", async () => {
    const key = await apiKeys.create("rotating", ["*"]);
    const rotated = await apiKeys.rotateWebhookSecret(key.record.id, 3600_000);
    expect(rotated.previousUntil).toBeGreaterThan(Date.now());
    await finishWithWebhook(statuses, "during", key.record.id, receiver.url("/rotating"));
    const during = await deliveredPost("during");
    expect(String(during.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(verify(key.webhookSecret, during).keyId).toBe(key.record.id);
    expect(verify(rotated.webhookSecret, during).keyId).toBe(key.record.id);

    // A rotation whose overlap has already ended: the replaced secret no longer signs.
    const again = await apiKeys.rotateWebhookSecret(key.record.id, 1000, Date.now() - 2000);
    await finishWithWebhook(statuses, "after", key.record.id, receiver.url("/rotating"));
    const after = await deliveredPost("after");
    expect(String(after.headers["webhook-signature"]).split(" ")).toHaveLength(1);
    expect(verify(again.webhookSecret, after).keyId).toBe(key.record.id);
    expect(() => verify(rotated.webhookSecret, after)).toThrow();
  });

  it("when a key from before per-key secrets is rotated with an overlap, then the deployment's secret signs beside its first own one", async () => {
    const legacy = "key_0000000000legacy";
    await finishWithWebhook(statuses, "legacy-before", legacy, receiver.url("/legacy"));
    expect(verify(deploymentSecret, await deliveredPost("legacy-before")).keyId).toBe(legacy);
    const own = await apiKeys.create("legacy-like", ["*"]);
    await connection.del(keys.apiKeyWebhookSecrets(own.record.id)); // as a key made before had none
    const rotated = await apiKeys.rotateWebhookSecret(own.record.id, 3600_000);
    await finishWithWebhook(statuses, "legacy-during", own.record.id, receiver.url("/legacy"));
    const during = await deliveredPost("legacy-during");
    expect(verify(deploymentSecret, during).keyId).toBe(own.record.id);
    expect(verify(rotated.webhookSecret, during).keyId).toBe(own.record.id);
  });
});
