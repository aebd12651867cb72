import request from "supertest";
import { defaultRequest } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { errorOf } from "../../../test-support/response-body.js";

// What the operator sets on a key's webhooks, and what the gateway holds it to at submit: no worker needed.
const ADMIN_TOKEN = "admin-token-for-webhook-policy-0123";
const SHORT = { ...defaultRequest(), samplingParams: { max_tokens: 12 } };

describe("a key's webhook policy, set by the operator", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(uniquePrefix("webhook-policy"), { ADMIN_TOKEN });
  });
  afterAll(() => gw.close());

  const admin = () => ({
    patch: (path: string, body: object) => request(gw.app).patch(path).auth(ADMIN_TOKEN, { type: "bearer" }).send(body),
    post: (path: string, body: object) => request(gw.app).post(path).auth(ADMIN_TOKEN, { type: "bearer" }).send(body),
    get: (path: string) => request(gw.app).get(path).auth(ADMIN_TOKEN, { type: "bearer" }),
  });
  const submit = (key: string, body: object) =>
    request(gw.app)
      .post("/api/text/default")
      .auth(key, { type: "bearer" })
      .send({ ...SHORT, ...body });

  it("when a key's webhook hosts are set, then a submit naming another host is 400 naming webhook, and its own hosts pass", async () => {
    const { id, key } = await gw.createKeyWithSecrets();
    const patched = await admin().patch(`/admin/keys/${id}`, { webhookHosts: ["hooks.a.example", "*.b.example"] });
    expect(patched.status).toBe(200);
    expect((patched.body as { webhookHosts: string[] }).webhookHosts).toEqual(["hooks.a.example", "*.b.example"]);
    for (const webhook of [
      "https://hooks.a.example/x",
      "https://HOOKS.A.EXAMPLE./x",
      "https://deep.x.b.example:8443/y",
    ])
      expect([webhook, (await submit(key, { webhook })).status]).toEqual([webhook, 200]);
    for (const webhook of [
      "https://tenant-b.example/hooks",
      "https://b.example/x",
      "https://a.example/x",
      "https://evilhooks.a.example/",
    ]) {
      const refused = await submit(key, { webhook });
      expect([webhook, refused.status]).toEqual([webhook, 400]);
      expect(errorOf(refused)).toMatchObject({ code: "INVALID_PARAMETER", details: { parameter: "webhook" } });
      expect(errorOf(refused).message).toContain("is not among this API key's webhook hosts");
    }
    expect((await submit(key, {})).status).toBe(200);
    expect((await admin().patch(`/admin/keys/${id}`, { webhookHosts: [] })).status).toBe(200);
    expect(errorOf(await submit(key, { webhook: "https://hooks.a.example/x" })).message).toContain(
      "may not use webhooks",
    );
    expect((await admin().patch(`/admin/keys/${id}`, { webhookHosts: null })).status).toBe(200);
    expect((await submit(key, { webhook: "https://anywhere.example/x" })).status).toBe(200);
    expect((await admin().patch(`/admin/keys/${id}`, { webhookHosts: ["not a host"] })).status).toBe(400);
  });

  it("when a key holds its cap of pending webhook deliveries, then a submit with webhook is 429 naming webhook and one without is accepted", async () => {
    const { id, key } = await gw.createKeyWithSecrets({ limits: { webhooks: 2 } });
    await gw.deps.webhookTurns.join(id, "pending-1");
    expect((await submit(key, { webhook: "https://hooks.example.com/x" })).status).toBe(200);
    await gw.deps.webhookTurns.join(id, "pending-2");
    const refused = await submit(key, { webhook: "https://hooks.example.com/x" });
    expect(refused.status).toBe(429);
    expect(refused.headers["retry-after"]).toBe("30");
    expect(errorOf(refused)).toMatchObject({
      code: "RATE_LIMITED",
      details: { parameter: "webhook", pending: 2, cap: 2 },
    });
    expect((await submit(key, {})).status).toBe(200);
    const view = await admin().get(`/admin/keys/${id}/webhooks`);
    expect(view.body).toMatchObject({ id, pending: 2, maxPending: 2, addresses: [] });
    await gw.deps.webhookTurns.ended(id, "pending-1");
    expect((await submit(key, { webhook: "https://hooks.example.com/x" })).status).toBe(200);
  });

  it("when webhookEvents is sent without webhook, or names an unknown event, then the submit is 400 naming it", async () => {
    const key = await gw.createKey();
    const alone = await submit(key, { webhookEvents: ["cancelled"] });
    expect(errorOf(alone)).toMatchObject({ code: "INVALID_PARAMETER", details: { parameter: "webhookEvents" } });
    const unknown = await submit(key, { webhook: "https://hooks.example.com/x", webhookEvents: ["started"] });
    expect(unknown.status).toBe(400);
    const asked = await submit(key, {
      webhook: "https://hooks.example.com/x",
      webhookEvents: ["completed", "cancelled"],
    });
    expect(asked.status).toBe(200);
  });

  it("when the operator rotates a key's webhook secret, then the new one is answered once, and the key's view shows the overlap, never a secret", async () => {
    const created = await admin().post("/admin/keys", { name: "rotated", webhookHosts: ["hooks.example.com"] });
    expect(created.status).toBe(201);
    const { id, webhookSecret } = created.body as { id: string; webhookSecret: string };
    const rotated = await admin().post(`/admin/keys/${id}/webhook-secret`, { overlapSeconds: 3600 });
    expect(rotated.status).toBe(200);
    expect(rotated.headers["cache-control"]).toBe("no-store");
    const body = rotated.body as { webhookSecret: string; previousValidUntil: string };
    expect(body.webhookSecret).toMatch(/^whsec_/);
    expect(body.webhookSecret).not.toBe(webhookSecret);
    expect(Date.parse(body.previousValidUntil) - Date.now()).toBeGreaterThan(3500_000);
    const view = await admin().get(`/admin/keys/${id}/webhooks`);
    expect(view.body).toEqual({
      id,
      signing: { ownSecret: true, previousValidUntil: body.previousValidUntil },
      hosts: ["hooks.example.com"],
      pending: 0,
      maxPending: gw.config.MAX_PENDING_WEBHOOKS_PER_KEY,
      addresses: [],
    });
    const everything = JSON.stringify((await admin().get("/admin/keys")).body) + JSON.stringify(view.body);
    expect(everything).not.toContain(webhookSecret);
    expect(everything).not.toContain(body.webhookSecret);
    expect((await admin().post(`/admin/keys/${id}/webhook-secret`, { overlapSeconds: -1 })).status).toBe(400);
    expect((await admin().post("/admin/keys/key_nope/webhook-secret", {})).status).toBe(404);
  });
});
