import { QUEUES, type StatusRecord } from "@chorus/contracts";
import { createWorkerRedis } from "@chorus/platform/redis";
import { Worker } from "bullmq";
import request from "supertest";
import { defaultRequest } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { TEST_REDIS, uniquePrefix } from "../../../test-support/redis.js";
import { errorOf, submittedId } from "../../../test-support/response-body.js";

let gw: TestGateway;
let key: string;
beforeAll(async () => {
  gw = await startTestGateway(uniquePrefix("idem"));
  key = await gw.createKey();
});
afterAll(() => gw.close());

const submit = (body: object, idempotencyKey?: string, k = key) => {
  const req = request(gw.app).post("/api/text/default").auth(k, { type: "bearer" });
  return (idempotencyKey ? req.set("Idempotency-Key", idempotencyKey) : req).send(body);
};
const queued = async () => Number(await gw.deps.redis.get(gw.deps.keys.textJobTickets()));

/** What workers do to a backlog: take every job and finish it (here at once, without a model). */
async function drain(bp: TestGateway): Promise<void> {
  const connection = createWorkerRedis(TEST_REDIS);
  const worker = new Worker(QUEUES.text, null, { connection, prefix: bp.deps.keys.bullPrefix(QUEUES.text) });
  try {
    for (let job = await worker.getNextJob("drain"); job; job = await worker.getNextJob("drain", { block: false })) {
      await job.moveToCompleted("done", "drain", false);
    }
  } finally {
    await worker.close();
    connection.disconnect();
  }
}

describe("Idempotency-Key on POST /api/text", () => {
  it("when a request is retried with the same key and body, then it gets the same id and nothing is queued twice", async () => {
    const first = await submit(defaultRequest("retry me"), "order-42");
    const before = await queued();
    const retry = await submit(defaultRequest("retry me"), "order-42");
    expect(first.status).toBe(200);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual({ id: submittedId(first), tokens: -1 });
    expect(await queued()).toBe(before);
  });

  it("when the same key comes with a different body, then it is 409 CONFLICT", async () => {
    await submit(defaultRequest("one thing"), "order-43");
    const res = await submit(defaultRequest("another thing"), "order-43");
    expect(res.status).toBe(409);
    expect(errorOf(res).code).toBe("CONFLICT");
  });

  it("when another API key uses the same Idempotency-Key, then it is its own request", async () => {
    const other = await gw.createKey();
    const mine = await submit(defaultRequest("shared key"), "order-44");
    const theirs = await submit(defaultRequest("shared key"), "order-44", other);
    expect(theirs.status).toBe(200);
    expect(submittedId(theirs)).not.toBe(submittedId(mine));
  });

  it("when the header is malformed, then it is 400 naming it", async () => {
    const res = await submit(defaultRequest(), "has spaces in it");
    expect(res.status).toBe(400);
    expect(errorOf(res).details).toEqual({
      parameter: "Idempotency-Key",
      expected_type: "string",
      problems: [{ parameter: "Idempotency-Key", expected_type: "string", message: errorOf(res).message }],
    });
  });
});

describe("backpressure", () => {
  it("when the queue holds MAX_QUEUE_DEPTH waiting jobs, then new submissions get 503 with Retry-After, and pass again once it drains", async () => {
    const bp = await startTestGateway(uniquePrefix("backpressure"), { MAX_QUEUE_DEPTH: "3" });
    try {
      const k = await bp.createKey();
      const post = () => request(bp.app).post("/api/text/default").auth(k, { type: "bearer" }).send(defaultRequest());
      for (let i = 0; i < 3; i++) expect((await post()).status).toBe(200);
      await bp.deps.queueDepth.refresh();
      const refused = await post();
      expect(refused.status).toBe(503);
      expect(errorOf(refused).code).toBe("SERVICE_UNAVAILABLE");
      expect(refused.headers["retry-after"]).toBe("5");
      await drain(bp);
      await bp.deps.queueDepth.refresh();
      expect((await post()).status).toBe(200);
    } finally {
      await bp.close();
    }
  });

  it("when a submission with an Idempotency-Key is refused, then its retry is not answered with an id that does not exist", async () => {
    const bp = await startTestGateway(uniquePrefix("backpressure-idem"), { MAX_QUEUE_DEPTH: "1" });
    try {
      const k = await bp.createKey();
      const post = (idempotencyKey?: string) => {
        const req = request(bp.app).post("/api/text/default").auth(k, { type: "bearer" });
        return (idempotencyKey ? req.set("Idempotency-Key", idempotencyKey) : req).send(defaultRequest("refused once"));
      };
      expect((await post()).status).toBe(200);
      await bp.deps.queueDepth.refresh();
      expect((await post("retry-after-503")).status).toBe(503);
      // Still full: the retry is refused again rather than handed a phantom id.
      expect((await post("retry-after-503")).status).toBe(503);
      await drain(bp);
      await bp.deps.queueDepth.refresh();
      const accepted = await post("retry-after-503");
      expect(accepted.status).toBe(200);
      const status = await request(bp.app)
        .get(`/api/v2/status/${submittedId(accepted)}`)
        .auth(k, { type: "bearer" });
      expect(status.status).toBe(200);
      expect((status.body as StatusRecord).status).toBe("processing");
    } finally {
      await bp.close();
    }
  });
});
