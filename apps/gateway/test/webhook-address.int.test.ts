import request from "supertest";
import { defaultRequest } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { errorOf } from "../../../test-support/response-body.js";
import { webhookSecret } from "../../../test-support/webhooks.js";

// The submit's check of a webhook's host: the gateway alone decides it, no worker or model needed.
const SHORT = { ...defaultRequest(), samplingParams: { max_tokens: 12 } };
const secret = webhookSecret();

const submitTo = (gw: TestGateway, key: string, webhook: unknown) =>
  request(gw.app)
    .post("/api/text/default")
    .auth(key, { type: "bearer" })
    .send({ ...SHORT, webhook });

/** Hosts that are, or reach through a translator or tunnel, this machine or its networks. */
const NOT_PUBLIC = [
  "http://127.0.0.1:8080/hook",
  "http://127.8.9.10/hook",
  "http://[::1]/hook",
  "http://10.1.2.3/hook",
  "http://172.16.0.5/hook",
  "http://172.31.255.255/hook",
  "http://192.168.1.1/hook",
  "http://169.254.169.254/latest/meta-data/",
  "http://[fc00::1]/hook",
  "http://[fd12:3456::1]/hook",
  "http://[fe80::1]/hook",
  "http://0.0.0.0/hook",
  "http://[::ffff:127.0.0.1]/hook",
  "http://localhost:3000/hook",
  "https://api.localhost/hook",
  "http://[::127.0.0.1]/",
  "http://[::ffff:0:127.0.0.1]/",
  "http://[64:ff9b::10.0.0.1]/",
  "http://[64:ff9b::169.254.169.254]/",
  "http://[64:ff9b:1::192.168.0.1]/",
  "http://[2002:a9fe:a9fe::]/",
  "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",
  "http://[fec0::1]/",
];

describe("where the deployment refuses private addresses", () => {
  let strict: TestGateway;
  let strictKey: string;
  beforeAll(async () => {
    strict = await startTestGateway(uniquePrefix("webhooks-strict"), { WEBHOOK_SECRET: secret });
    strictKey = await strict.createKey({ limits: { text: 1000 } });
  });
  afterAll(() => strict.close());

  it.each(NOT_PUBLIC)(
    "when webhook is %s, then the submit is 400 INVALID_PARAMETER naming webhook",
    async (webhook) => {
      const res = await submitTo(strict, strictKey, webhook);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        status: "error",
        error: { code: "INVALID_PARAMETER", details: { parameter: "webhook" } },
      });
      expect(errorOf(res).message).toMatch(/refused/);
      expect(errorOf(res).message).toContain("WEBHOOK_ALLOW_PRIVATE=true");
    },
  );

  it.each([
    "https://hooks.example.com/chorus",
    "http://172.32.0.1/hook",
    "http://8.8.8.8/hook",
    "http://[64:ff9b::8.8.8.8]/hook",
    "http://[2002:0808:0808::]/hook",
  ])("when webhook is the public %s, then the submit is accepted", async (webhook) => {
    expect((await submitTo(strict, strictKey, webhook)).status).toBe(200);
  });

  it("when no WEBHOOK_SECRET is configured, then a key with its own signing secret may use webhook, and a key from before (none of its own) gets 400 naming webhook", async () => {
    const unsigned = await startTestGateway(uniquePrefix("webhooks-off"));
    try {
      expect((await submitTo(unsigned, await unsigned.createKey(), "https://hooks.example.com/chorus")).status).toBe(
        200,
      );
      const legacy = await unsigned.createKeyWithSecrets();
      await unsigned.deps.redis.del(unsigned.deps.keys.apiKeyWebhookSecrets(legacy.id));
      const secretHash = await unsigned.deps.redis.hget(unsigned.deps.keys.apiKeyIndex(), legacy.id);
      await unsigned.deps.redis.hdel(unsigned.deps.keys.apiKeyBySecretHash(secretHash ?? ""), "webhookSecret");
      const res = await submitTo(unsigned, legacy.key, "https://hooks.example.com/chorus");
      expect(res.status).toBe(400);
      expect(errorOf(res)).toMatchObject({ code: "INVALID_PARAMETER", details: { parameter: "webhook" } });
      expect(errorOf(res).message).toContain("rotate-webhook-secret");
    } finally {
      await unsigned.close();
    }
  });
});

describe("where the deployment allows private addresses (WEBHOOK_ALLOW_PRIVATE=true)", () => {
  let lax: TestGateway;
  let laxKey: string;
  beforeAll(async () => {
    lax = await startTestGateway(uniquePrefix("webhooks-lax"), {
      WEBHOOK_SECRET: secret,
      WEBHOOK_ALLOW_PRIVATE: "true",
    });
    laxKey = await lax.createKey({ limits: { text: 1000 } });
  });
  afterAll(() => lax.close());

  it.each(NOT_PUBLIC)("when webhook is %s, then the submit is accepted", async (webhook) => {
    expect((await submitTo(lax, laxKey, webhook)).status).toBe(200);
  });
});
