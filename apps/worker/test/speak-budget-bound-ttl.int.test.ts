import { defaultVoiceFor, type StatusRecord } from "@chorus/contracts";
import { createWorkerRedis, redisKeys, type RedisClient } from "@chorus/platform/redis";
import { SpeechAudioStore } from "@chorus/platform/speech-audio";
import request from "supertest";
import { EspeakSpeechEngine } from "../src/engines/tts/espeak.speech-engine.js";
import type { LlmEngine } from "../src/engines/llm/llm-engine.js";
import { spokenPart } from "../src/processors/spoken-part.js";
import { bytesParser, defaultRequest, describeWithModel } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { TEST_REDIS, uniquePrefix } from "../../../test-support/redis.js";
import { errorOf, submittedId } from "../../../test-support/response-body.js";
import { loadFixtureEngine, startTestWorker, type TestWorker } from "../../../test-support/worker.js";
import { finalRecord } from "../../../test-support/records.js";

/** Small, so that the fixture model's replies (a few hundred characters at 40 tokens) pass it. */
const SPOKEN_CHARS = 40;
const AUDIO_TTL_SECONDS = 120;
const SHORT = { max_tokens: 8, temperature: 0.1, seed: 7 };
const LONG = { max_tokens: 40, temperature: 0.1, seed: 7 };

describeWithModel("speak: the speech budget at submit, the spoken text's bound, the audio's lifetime", () => {
  let gw: TestGateway;
  let worker: TestWorker;
  let llm: LlmEngine;
  let speech: EspeakSpeechEngine;
  let redis: RedisClient;
  beforeAll(async () => {
    const prefix = uniquePrefix("speak-bounds");
    gw = await startTestGateway(prefix);
    llm = await loadFixtureEngine();
    speech = new EspeakSpeechEngine({ concurrency: 1 });
    redis = createWorkerRedis(TEST_REDIS);
    const replySpeech = {
      speech,
      audio: new SpeechAudioStore(redis, redisKeys(prefix)),
      ttlSeconds: AUDIO_TTL_SECONDS,
      maxChars: SPOKEN_CHARS,
    };
    worker = await startTestWorker(prefix, llm, {
      speech: { speech, concurrency: 1, audioTtlSeconds: 60 },
      replySpeech,
    });
  }, 120_000);
  afterAll(async () => {
    await worker.close();
    await speech.close();
    await llm.close();
    redis.disconnect();
    await gw.close();
  }, 60_000);

  const submit = (key: string, body: object) =>
    request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).send(body);
  const get = (key: string, path: string) => request(gw.app).get(path).auth(key, { type: "bearer" });
  const finished = (key: string, id: string): Promise<StatusRecord> => finalRecord(gw.app, key, id);
  const requestsOf = async (key: string) =>
    ((await get(key, "/api/v2/requests")).body as { data: unknown[] }).data.length;

  it("when a key's speech budget is 2, then the third speak submit is 429 with the speech budget's headers and nothing queued, while a submit without speak passes", async () => {
    const key = await gw.createKey({ limits: { text: 20, tts: 2, status: 100_000 } });
    for (const remaining of [19, 18]) {
      const accepted = await submit(key, { ...defaultRequest(), samplingParams: SHORT, speak: {} });
      expect(accepted.status).toBe(200);
      // Admitted: the headers are the text budget's, as on any submit.
      expect(accepted.headers["x-ratelimit-limit"]).toBe("20");
      expect(accepted.headers["x-ratelimit-remaining"]).toBe(String(remaining));
    }
    const refused = await submit(key, { ...defaultRequest(), samplingParams: SHORT, speak: {} });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ status: "error", error: { code: "RATE_LIMITED" } });
    expect(errorOf(refused).message).toMatch(/tts/);
    // Refused: the headers are the speech budget's, agreeing with Retry-After.
    expect(refused.headers["x-ratelimit-limit"]).toBe("2");
    expect(refused.headers["x-ratelimit-remaining"]).toBe("0");
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(Number(refused.headers["retry-after"])).toBeLessThanOrEqual(60);
    expect(Number(refused.headers["x-ratelimit-reset"])).toBeGreaterThan(Date.now() / 1000);
    expect(await requestsOf(key)).toBe(2);

    // The same budget as the speech endpoint's, and the refused submit kept its text unit (20 - 4).
    expect((await request(gw.app).post("/api/tts").auth(key, { type: "bearer" }).send({ text: "Hello." })).status).toBe(
      429,
    );
    const plain = await submit(key, { ...defaultRequest(), samplingParams: SHORT });
    expect(plain.status).toBe(200);
    expect(plain.headers["x-ratelimit-remaining"]).toBe("16");
    expect(await requestsOf(key)).toBe(3);
  });

  it("when the reply is longer than the bound, then only its start up to a sentence end (else a space) within the bound is spoken, and the record says audioTruncated", async () => {
    const key = await gw.createKey({ limits: { status: 100_000 } });
    const id = submittedId(
      await submit(key, { ...defaultRequest("Once upon a time"), samplingParams: LONG, speak: { format: "wav" } }),
    );
    const record = await finished(key, id);
    expect(record).toMatchObject({ status: "completed", audioUrl: `/api/v2/status/${id}/audio`, audioTruncated: true });
    const reply = record.reply as string;
    expect([...reply].length).toBeGreaterThan(SPOKEN_CHARS);
    const spoken = spokenPart(reply, SPOKEN_CHARS).text;
    expect(spoken.length).toBeGreaterThan(0);

    const audio = await get(key, record.audioUrl as string)
      .buffer(true)
      .parse(bytesParser);
    expect(audio.status).toBe(200);
    // eSpeak's audio of a text always has the same length: the stored audio is that of the bounded text.
    const lengthOf = async (text: string) => {
      const direct = await request(gw.app)
        .post("/api/tts")
        .auth(key, { type: "bearer" })
        .set("Prefer", "stream=false") // whole, as a spoken reply is made (streamed speech is cut into other chunks)
        .send({ text, voice: defaultVoiceFor("default"), format: "wav" });
      expect(direct.status).toBe(200);
      return Number(direct.headers["content-length"]);
    };
    expect((audio.body as Buffer).length).toBe(await lengthOf(spoken));
    expect((audio.body as Buffer).length).toBeLessThan(await lengthOf(reply));
  });

  it("when a reply is spoken, then its audio expires after the configured lifetime, before its record; once gone, the audio path says it has expired", async () => {
    const key = await gw.createKey({ limits: { status: 100_000 } });
    const id = submittedId(
      await submit(key, { ...defaultRequest("Once upon a time"), samplingParams: SHORT, speak: {} }),
    );
    expect((await finished(key, id)).audioUrl).toBeDefined();
    const keys = redisKeys(gw.prefix);
    for (const audioKey of [keys.audio(id), keys.audioMeta(id)]) {
      const ttl = await redis.ttl(audioKey);
      expect(ttl).toBeGreaterThan(AUDIO_TTL_SECONDS - 30);
      expect(ttl).toBeLessThanOrEqual(AUDIO_TTL_SECONDS);
    }
    expect(await redis.ttl(keys.status(id))).toBeGreaterThan(AUDIO_TTL_SECONDS);

    await redis.del(keys.audio(id), keys.audioMeta(id)); // what their expiry does
    const gone = await get(key, `/api/v2/status/${id}/audio`);
    expect(gone.status).toBe(404);
    expect(errorOf(gone)).toMatchObject({
      code: "NOT_FOUND",
      message: `the spoken reply of request '${id}' has expired`,
    });
    expect((await get(key, `/api/v2/status/${id}`)).body).toMatchObject({
      status: "completed",
      audioUrl: `/api/v2/status/${id}/audio`,
    });
  });
});
