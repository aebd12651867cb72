import {
  QUEUES,
  type BudgetHold,
  type GenerateTextJob,
  type OpenAiErrorEnvelope,
  type StatusRecord,
} from "@chorus/contracts";
import { utcDayOf, utcMonthOf, type PeriodFigures } from "@chorus/platform/budgets";
import { createWorkerRedis, type RedisClient } from "@chorus/platform/redis";
import { StatusStore } from "@chorus/platform/scheduler";
import { Queue } from "bullmq";
import request from "supertest";
import { LostJobSweeper } from "../src/records/lost-job.sweeper.js";
import { defaultRequest, describeWithModel, SAMPLE_COMPLETION } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { testLogger } from "../../../test-support/logger.js";
import { finalRecord } from "../../../test-support/records.js";
import { TEST_REDIS, uniquePrefix } from "../../../test-support/redis.js";
import { errorOf, submittedId } from "../../../test-support/response-body.js";
import { startTestServiceWithSpeech, type TestService } from "../../../test-support/service.js";
import { waitFor } from "../../../test-support/wait-for.js";
import { loadFixtureEngine, startTestWorker } from "../../../test-support/worker.js";

/**
 * Usage budgets settled by the real worker (the fixture model, eSpeak NG) behind two gateways on one
 * Redis: every finished job gives back its hold and adds what it used, once.
 */
const SUBMIT = { ...defaultRequest(), samplingParams: { max_tokens: 24 } };
const today = () => utcDayOf(Date.now());

describeWithModel("usage budgets settled by the real worker", () => {
  let service: TestService;
  let gwA: TestGateway;
  let gwB: TestGateway;
  let queue: Queue<GenerateTextJob>;
  beforeAll(async () => {
    service = await startTestServiceWithSpeech("budget-settle", {}, 1);
    gwA = service.gw;
    gwB = await startTestGateway(gwA.prefix);
    queue = gwA.deps.queues[0] as Queue<GenerateTextJob>;
  }, 120_000);
  afterAll(async () => {
    await gwB.close({ keepKeys: true });
    await service.close();
  }, 60_000);

  const submit = (gw: TestGateway, key: string, body: object = SUBMIT) =>
    request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).send(body);
  const figures = (keyId: string, period = today()): Promise<PeriodFigures> =>
    gwA.deps.budgetLedger.figures(keyId, period);
  /** Once nothing is held any more, every hold of the key has been settled. */
  const settled = (keyId: string) =>
    waitFor(`the holds of ${keyId} settled`, async () => {
      const day = await figures(keyId);
      return day.tokensHeld === 0 && day.audioMsHeld === 0 ? day : undefined;
    });
  const holdOf = async (id: string): Promise<BudgetHold> => (await queue.getJob(id))!.data.budget!;

  it("when 16 requests burst over two gateways against a small token budget, then none is held past it, the refused get 429 with Retry-After, and once all finish the key has used exactly its records' tokens, within the cap", async () => {
    // What one SUBMIT holds, read from a key with room to spare.
    const probe = await submit(gwA, await gwA.createKey({ limits: { tokens_day: 1_000_000 } }));
    const ask = 1_000_000 - Number(probe.headers["x-budget-tokens-remaining"]);
    const cap = 4 * ask + Math.floor(ask / 2);
    const { id: keyId, key } = await gwA.createKeyWithSecrets({ limits: { tokens_day: cap } });

    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => submit(i % 2 ? gwB : gwA, key)));
    const accepted = answers.filter((res) => res.status === 200);
    const refused = answers.filter((res) => res.status === 429);
    expect(accepted.length + refused.length).toBe(16);
    // At least the 4 that fit whole; more only where jobs settled below their hold meanwhile.
    expect(accepted.length).toBeGreaterThanOrEqual(4);
    for (const res of accepted) expect(Number(res.headers["x-budget-tokens-remaining"])).toBeGreaterThanOrEqual(0);
    for (const res of refused) {
      expect(errorOf(res)).toMatchObject({ code: "BUDGET_EXCEEDED", details: { budget: "tokens_day", cap } });
      expect(Number(res.headers["retry-after"])).toBeGreaterThan(0);
    }

    const records: StatusRecord[] = [];
    for (const res of accepted) records.push(await finalRecord(gwA.app, key, submittedId(res)));
    expect(records.map((r) => r.status)).toEqual(accepted.map(() => "completed"));
    const day = await settled(keyId);
    const used = records.reduce((sum, r) => sum + r.tokens! + r.promptTokens!, 0);
    expect(day).toEqual({ tokens: used, tokensHeld: 0, audioMs: 0, audioMsHeld: 0 });
    expect((await figures(keyId, utcMonthOf(Date.now()))).tokens).toBe(used);
    // The worker published the model's token bounds: no request used more than it held, so the key
    // used no more than its budget, however the requests raced.
    for (const r of records) expect(r.tokens! + r.promptTokens!).toBeLessThanOrEqual(ask);
    expect(used).toBeLessThanOrEqual(cap);
  }, 120_000);

  it("when a finished job is settled again (a repeated delivery, a take-over), then nothing changes", async () => {
    const { id: keyId, key } = await gwA.createKeyWithSecrets({ limits: { tokens_month: 100_000 } });
    const res = await submit(gwB, key);
    const id = submittedId(res);
    const hold = await holdOf(id);
    const record = await finalRecord(gwA.app, key, id);
    const day = await settled(keyId);
    expect(day.tokens).toBe(record.tokens! + record.promptTokens!);
    const again = { keyId, requestId: id, day: hold.day, month: hold.month, tokens: 500, audioMs: 0 };
    expect(await gwB.deps.budgetLedger.settle(again)).toBe(false);
    expect(await figures(keyId)).toEqual(day);
  }, 120_000);

  it("when a job fails for good, then its hold is given back and nothing is counted", async () => {
    const { id: keyId, key } = await gwA.createKeyWithSecrets({ limits: { tokens_day: 1_000_000 } });
    // A /v1 conversation whose last message leaves the context no room for a reply: refused by the worker.
    const res = await request(gwA.app)
      .post("/v1/chat/completions")
      .auth(key, { type: "bearer" })
      .send({ model: "default", messages: [{ role: "user", content: "cat ".repeat(1900) }], max_tokens: 16 });
    expect(res.status).toBe(400);
    expect((res.body as OpenAiErrorEnvelope).error.code).toBe("context_length_exceeded");
    // What it held: the whole context, which its text passes.
    expect(Number(res.headers["x-budget-tokens-remaining"])).toBe(1_000_000 - 1024);
    await waitFor("the failed job's hold given back", async () => (await figures(keyId)).tokensHeld === 0);
    expect(await figures(keyId)).toEqual({ tokens: 0, tokensHeld: 0, audioMs: 0, audioMsHeld: 0 });
  }, 120_000);

  it("when speech is synthesized under an audio budget, then its estimate held at least the audio made, and the seconds made are what counts", async () => {
    const { id: keyId, key } = await gwA.createKeyWithSecrets({ limits: { audio_seconds_day: 600 } });
    const res = await request(gwB.app)
      .post("/api/tts")
      .auth(key, { type: "bearer" })
      .set("Prefer", "stream=false")
      .send({ text: "The witch stirred her cauldron slowly, humming an old song.", format: "wav" });
    expect(res.status).toBe(200);
    const seconds = Number(res.headers["x-audio-duration"]);
    expect(seconds).toBeGreaterThan(0);
    const held = 600 - Number(res.headers["x-budget-audio-seconds-remaining"]);
    expect(held).toBeGreaterThanOrEqual(seconds);
    const day = await settled(keyId);
    expect(day.audioMs).toBe(Math.round(seconds * 1000));
  }, 120_000);
});

describeWithModel("usage budgets of a job whose record was written by an attempt that died", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(uniquePrefix("budget-recorded"));
  });
  afterAll(() => gw.close());

  it("when a worker takes a job whose record is already completed and its hold not settled, then it settles as the record says", async () => {
    const { id: keyId, key } = await gw.createKeyWithSecrets({ limits: { tokens_day: 1_000_000 } });
    const id = submittedId(await request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).send(SUBMIT));
    expect((await gw.deps.budgetLedger.figures(keyId, today())).tokensHeld).toBeGreaterThan(0);
    // The attempt that wrote this record died before settling; its job is still queued.
    expect(await gw.deps.statuses.complete(id, SAMPLE_COMPLETION)).toBe(true);
    const engine = await loadFixtureEngine();
    const worker = await startTestWorker(gw.prefix, engine);
    try {
      const day = await waitFor("the hold settled", async () => {
        const figures = await gw.deps.budgetLedger.figures(keyId, today());
        return figures.tokensHeld === 0 ? figures : undefined;
      });
      expect(day.tokens).toBe(SAMPLE_COMPLETION.tokens + SAMPLE_COMPLETION.promptTokens);
      expect((await finalRecord(gw.app, key, id)).reply).toBe(SAMPLE_COMPLETION.reply);
    } finally {
      await worker.close();
      await engine.close();
    }
  }, 120_000);
});

describe("usage budgets of jobs no worker ran", () => {
  let gw: TestGateway;
  let connection: RedisClient;
  beforeAll(async () => {
    gw = await startTestGateway(uniquePrefix("budget-lost"));
    connection = createWorkerRedis(TEST_REDIS);
  });
  afterAll(async () => {
    connection.disconnect();
    await gw.close();
  });

  it("when a held job vanishes from the queue, then the lost-job sweep closes its record and gives its hold back", async () => {
    const { id: keyId, key } = await gw.createKeyWithSecrets({ limits: { tokens_day: 1_000_000 } });
    const id = submittedId(await request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).send(SUBMIT));
    expect((await gw.deps.budgetLedger.figures(keyId, today())).tokensHeld).toBeGreaterThan(0);
    const queue = new Queue(QUEUES.text, { connection, prefix: gw.deps.keys.bullPrefix(QUEUES.text) });
    expect(await queue.remove(id)).toBe(1);
    await queue.close();
    const sweeper = new LostJobSweeper({
      connection,
      keys: gw.deps.keys,
      statuses: new StatusStore(connection, gw.deps.keys, 3600),
      logger: testLogger("worker"),
      graceMs: 0,
      onLost: () => undefined,
      budgets: gw.deps.budgetLedger,
    });
    expect(await sweeper.sweepOnce()).toEqual({ lost: 1, failed: 0 });
    expect(await gw.deps.budgetLedger.figures(keyId, today())).toEqual({
      tokens: 0,
      tokensHeld: 0,
      audioMs: 0,
      audioMsHeld: 0,
    });
  });
});
