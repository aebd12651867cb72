import type { StatusRecord } from "@chorus/contracts";
import type { DailyUsage } from "@chorus/platform/api-keys";
import type { UsageReport } from "@chorus/platform/usage";
import request from "supertest";
import { characterRequest, defaultRequest, describeWithModel } from "../../../test-support/fixtures.js";
import type { TestGateway } from "../../../test-support/gateway.js";
import { submittedId } from "../../../test-support/response-body.js";
import { startTestServiceWithSpeech, type TestService } from "../../../test-support/service.js";
import { waitFor } from "../../../test-support/wait-for.js";

/** GET /admin/keys/{id}/usage's answer. */
type KeyUsage = { days: DailyUsage[]; total: Omit<DailyUsage, "date"> };

const ADMIN_TOKEN = "admin-token-for-the-usage-test-0123456789";

describeWithModel("an API key's usage, counted by the gateway and a real worker", () => {
  let service: TestService;
  let gw: TestGateway;
  beforeAll(async () => {
    service = await startTestServiceWithSpeech("usage", { ADMIN_TOKEN }, 1);
    gw = service.gw;
  }, 120_000);
  afterAll(() => service.close(), 60_000);

  const admin = (path: string) => request(gw.app).get(path).auth(ADMIN_TOKEN, { type: "bearer" });
  const utcToday = () => new Date().toISOString().slice(0, 10);

  /** GET /api/v2/usage with the key itself. */
  async function ownUsage(key: string, query: string): Promise<UsageReport> {
    const res = await request(gw.app).get(`/api/v2/usage?${query}`).auth(key, { type: "bearer" });
    expect(res.status).toBe(200);
    return res.body as UsageReport;
  }

  /** Waits (Prefer: wait) until the record is final; returns it and how many polls that took. */
  async function finalRecord(key: string, id: string): Promise<{ record: StatusRecord; polls: number }> {
    for (let polls = 1; polls <= 20; polls++) {
      const res = await request(gw.app)
        .get(`/api/v2/status/${id}`)
        .auth(key, { type: "bearer" })
        .set("Prefer", "wait=10");
      expect(res.status).toBe(200);
      const record = res.body as StatusRecord;
      if (record.status !== "processing") return { record, polls };
    }
    throw new Error(`${id} still processing after 20 waits`);
  }

  /** Once BullMQ holds the job completed, its processor has returned: whatever it counts is counted. */
  async function jobFinished(id: string): Promise<void> {
    const queue = gw.deps.queues[0]!;
    await waitFor(`job ${id} completed`, async () => (await queue.getJobState(id)) === "completed", {
      timeoutMs: 10_000,
      intervalMs: 10,
    });
  }

  it("when a key makes 2 text requests and 1 speech request, then its usage today has them, with the records' tokens and the speech seconds", async () => {
    const created = await request(gw.app)
      .post("/admin/keys")
      .auth(ADMIN_TOKEN, { type: "bearer" })
      .send({ name: "usage-test" });
    expect(created.status).toBe(201);
    const { id: keyId, key } = created.body as { id: string; key: string };

    const records: StatusRecord[] = [];
    let polls = 0;
    for (const [path, body] of [
      ["/api/text/default", defaultRequest()],
      ["/api/text/Witch", characterRequest()],
    ] as const) {
      const submitted = await request(gw.app).post(path).auth(key, { type: "bearer" }).send(body);
      expect(submitted.status).toBe(200);
      const final = await finalRecord(key, submittedId(submitted));
      expect(final.record.status).toBe("completed");
      records.push(final.record);
      polls += final.polls;
      await jobFinished(submittedId(submitted));
    }
    // Whole, for the duration header (streamed speech's usage: streamed-speech.int.test.ts).
    const spoken = await request(gw.app)
      .post("/api/tts")
      .auth(key, { type: "bearer" })
      .set("Prefer", "stream=false")
      .send({ text: "The witch stirred her cauldron slowly.", format: "wav" });
    expect(spoken.status).toBe(200);

    const res = await admin(`/admin/keys/${keyId}/usage`);
    expect(res.status).toBe(200);
    const usage = res.body as KeyUsage;
    const today = usage.days.at(-1)!;
    expect(today.date).toBe(new Date().toISOString().slice(0, 10));
    expect(today.requests).toEqual({ text: 2, tts: 1, status: polls });
    expect(today.tokens).toBe(records.reduce((sum, r) => sum + (r.tokens ?? 0), 0));
    expect(today.promptTokens).toBe(records.reduce((sum, r) => sum + (r.promptTokens ?? 0), 0));
    expect(records.every((r) => (r.tokens ?? 0) > 0 && (r.promptTokens ?? 0) > 0)).toBe(true);
    expect(Number(today.speechSeconds)).toBeCloseTo(Number(spoken.headers["x-audio-duration"]), 2);
    expect(Number(today.speechSeconds)).toBeGreaterThan(0);
    expect(usage.total).toEqual({
      requests: today.requests,
      tokens: today.tokens,
      promptTokens: today.promptTokens,
      speechSeconds: today.speechSeconds,
    });

    // The key reads the same, by model: each text model its completed records' tokens, speech under its engine.
    const byModel = await ownUsage(key, "groupBy=model");
    const engine = service.worker.deps.speech!.speech.name;
    expect(byModel.buckets.map((b) => "model" in b && b.model).sort()).toEqual(["default", engine, "Witch"].sort());
    for (const [model, record] of [
      ["default", records[0]!],
      ["Witch", records[1]!],
    ] as const)
      expect(byModel.buckets.find((b) => "model" in b && b.model === model)).toEqual({
        model,
        requests: { completed: 1, error: 0, cancelled: 0 },
        promptTokens: record.promptTokens,
        cachedPromptTokens: record.cachedTokens ?? 0,
        completionTokens: record.tokens,
        characters: 0,
        audioSeconds: 0,
      });
    const speech = byModel.buckets.find((b) => "model" in b && b.model === engine)!;
    expect(speech.requests).toEqual({ completed: 1, error: 0, cancelled: 0 });
    expect(speech.characters).toBe("The witch stirred her cauldron slowly.".length);
    expect(speech.audioSeconds).toBeCloseTo(Number(spoken.headers["x-audio-duration"]), 2);
    const byDay = await ownUsage(key, `from=${utcToday()}&to=${utcToday()}`);
    expect(byDay.buckets).toEqual([{ day: utcToday(), ...byDay.total }]);
    expect(byDay.total).toEqual(byModel.total);
  }, 120_000);

  it("when a reply is spoken on completion (speak), then its seconds count as the key's speech, once", async () => {
    const created = await request(gw.app)
      .post("/admin/keys")
      .auth(ADMIN_TOKEN, { type: "bearer" })
      .send({ name: "usage-speak-test" });
    const { id: keyId, key } = created.body as { id: string; key: string };
    const submitted = await request(gw.app)
      .post("/api/text/default")
      .auth(key, { type: "bearer" })
      .send({ ...defaultRequest(), speak: { format: "wav" } });
    expect(submitted.status).toBe(200);
    const { record } = await finalRecord(key, submittedId(submitted));
    expect(record).toMatchObject({ status: "completed", audioUrl: `/api/v2/status/${submittedId(submitted)}/audio` });
    await jobFinished(submittedId(submitted));
    const audio = await request(gw.app).get(record.audioUrl!).auth(key, { type: "bearer" });
    expect(audio.status).toBe(200);

    const today = ((await admin(`/admin/keys/${keyId}/usage`)).body as KeyUsage).days.at(-1)!;
    expect(Number(today.speechSeconds)).toBeCloseTo(Number(audio.headers["x-audio-duration"]), 2);
    expect(Number(today.speechSeconds)).toBeGreaterThan(0);
    // The submit spent a unit of the speech budget as well as of the text one: it counts in both.
    expect(today.requests).toMatchObject({ text: 1, tts: 2 });
    // One finished job: the spoken characters and seconds count under its text model.
    const { total } = await ownUsage(key, "groupBy=model");
    expect(total.requests).toEqual({ completed: 1, error: 0, cancelled: 0 });
    expect(total.characters).toBe([...record.reply!].length);
    expect(total.audioSeconds).toBeCloseTo(Number(audio.headers["x-audio-duration"]), 2);
  }, 120_000);
});
