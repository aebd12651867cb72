import {
  AUDIO_FORMATS,
  QUEUES,
  SPEECH_LIMITS,
  VOICES,
  type AudioFormat,
  type StatusRecord,
  type Voice,
} from "@chorus/contracts";
import { Queue } from "bullmq";
import request from "supertest";
import { measureAudio } from "../src/engines/tts/measure-audio.test-helpers.js";
import type { SynthesizedAudio } from "../src/engines/tts/speech-engine.js";
import { bytesParser, defaultRequest, describeWithModel, sleep } from "../../../test-support/fixtures.js";
import type { TestGateway } from "../../../test-support/gateway.js";
import { errorOf, submittedId } from "../../../test-support/response-body.js";
import { startTestServiceWithSpeech, type TestService } from "../../../test-support/service.js";
import { waitFor } from "../../../test-support/wait-for.js";

const TEXT =
  "The witch stirred her cauldron slowly. Green smoke curled up toward the crooked beams, and the cat watched from the windowsill.";
const CONTENT_TYPES: Record<AudioFormat, RegExp> = {
  mp3: /^audio\/mpeg$/,
  wav: /^audio\/wav$/,
  opus: /^audio\/ogg$/,
  flac: /^audio\/flac$/,
  pcm: /^audio\/L16;rate=\d+$/,
};

describeWithModel("text-to-speech through gateway, queue and worker (eSpeak NG)", () => {
  let service: TestService;
  let gw: TestGateway;
  let key: string;
  beforeAll(async () => {
    service = await startTestServiceWithSpeech("speech");
    gw = service.gw;
    key = await gw.createKey({ limits: { tts: 1000, status: 100_000 } });
  }, 120_000);
  afterAll(() => service.close(), 60_000);

  const speak = (body: object, path = "/api/audio/full") =>
    request(gw.app).post(path).auth(key, { type: "bearer" }).buffer(true).parse(bytesParser).send(body);

  async function measured(res: request.Response, format: AudioFormat) {
    const audio = {
      bytes: res.body as Buffer,
      format,
      contentType: res.headers["content-type"] as string,
    } as SynthesizedAudio;
    return measureAudio(audio);
  }

  it.each(AUDIO_FORMATS)(
    "when %s is asked for, then the bytes decode as real speech of a plausible length",
    async (format) => {
      const res = await speak({ text: TEXT, voice: "Witch", format });
      expect(res.status).toBe(200);
      expect(res.headers["content-type"]).toMatch(CONTENT_TYPES[format]);
      // Streamed by default: chunked, so no Content-Length (see streamed-speech.int.test.ts).
      expect(res.headers["transfer-encoding"]).toBe("chunked");
      expect(res.headers["content-length"]).toBeUndefined();
      const audio = await measured(res, format);
      expect(audio.durationSeconds).toBeGreaterThan(3);
      expect(audio.durationSeconds).toBeLessThan(20);
      expect(audio.loud).toBe(true);
    },
  );

  it.each(AUDIO_FORMATS)(
    "when %s is asked for with Prefer: stream=false, then it comes whole with Content-Length and decodes as real speech",
    async (format) => {
      const res = await speak({ text: TEXT, voice: "Witch", format }).set("Prefer", "stream=false");
      expect(res.status).toBe(200);
      expect(res.headers["content-type"]).toMatch(CONTENT_TYPES[format]);
      expect(res.headers["preference-applied"]).toBe("stream=false");
      expect(Number(res.headers["content-length"])).toBe((res.body as Buffer).length);
      expect(Number(res.headers["x-audio-duration"])).toBeGreaterThan(3);
      const audio = await measured(res, format);
      // 21 words at ~175 words per minute: about 7 s; allow a wide margin for voices and pauses.
      expect(audio.durationSeconds).toBeGreaterThan(3);
      expect(audio.durationSeconds).toBeLessThan(20);
      expect(audio.loud).toBe(true);
    },
  );

  it("when the speed is halved, then the audio is longer; doubled, shorter", async () => {
    const seconds = async (speed: number) =>
      (await measured(await speak({ text: TEXT, format: "wav", speed }, "/api/tts"), "wav")).durationSeconds;
    const [slow, normal, fast] = [await seconds(0.5), await seconds(1), await seconds(2)];
    expect(slow).toBeGreaterThan(normal * 1.5);
    expect(fast).toBeLessThan(normal * 0.75);
  });

  it("when delivered, then the audio is gone from Redis", async () => {
    expect((await speak({ text: "Hello there.", format: "pcm" })).status).toBe(200);
    // Deleted once the response has finished, which the client may see first: wait for it (bounded).
    const stored = async () =>
      (
        await Promise.all(
          ["audio", "audio-meta", "audio-stream"].map((kind) => gw.deps.redis.keys(`${gw.prefix}:${kind}:*`)),
        )
      ).flat();
    await waitFor("the audio gone from Redis", async () => (await stored()).length === 0, {
      timeoutMs: 5000,
      intervalMs: 20,
    });
  });

  it.each([
    ["no text", {}, "text", "string"],
    ["empty text", { text: "" }, "text", "string"],
    ["text over the limit", { text: "x".repeat(SPEECH_LIMITS.textMaxChars + 1) }, "text", "string"],
    ["an unknown voice", { text: "hi", voice: "Gandalf" }, "voice", "string"],
    ["an unknown format", { text: "hi", format: "aac" }, "format", "string"],
    ["speed above 4", { text: "hi", speed: 4.5 }, "speed", "number"],
    ["speed below 0.25", { text: "hi", speed: 0.1 }, "speed", "number"],
    ["speed as a string", { text: "hi", speed: "fast" }, "speed", "number"],
  ])("when the body has %s, then it is 400 naming the parameter", async (_label, body, parameter, expectedType) => {
    const res = await request(gw.app).post("/api/tts").auth(key, { type: "bearer" }).send(body);
    expect(res.status).toBe(400);
    expect(errorOf(res)).toMatchObject({
      code: "INVALID_PARAMETER",
      details: { parameter, expected_type: expectedType },
    });
  });

  it("when a speech request is retried with the same Idempotency-Key, then the same audio comes back without a second synthesis", async () => {
    const queue = new Queue(QUEUES.speech, {
      connection: gw.deps.redis,
      prefix: gw.deps.keys.bullPrefix(QUEUES.speech),
    });
    const jobsBefore = (await queue.getJobCounts("completed")).completed ?? 0;
    const body = { text: "Once, twice, but made only once.", format: "opus" };
    const first = await speak(body).set("Idempotency-Key", "speech-1");
    const retry = await speak(body).set("Idempotency-Key", "speech-1");
    expect(first.status).toBe(200);
    expect(retry.status).toBe(200);
    expect(Buffer.compare(retry.body as Buffer, first.body as Buffer)).toBe(0);
    expect(retry.headers["content-type"]).toBe(first.headers["content-type"]);
    expect((await queue.getJobCounts("completed")).completed).toBe(jobsBefore + 1);
    const other = await request(gw.app)
      .post("/api/tts")
      .auth(key, { type: "bearer" })
      .set("Idempotency-Key", "speech-1")
      .send({ text: "Something else.", format: "opus" });
    expect(other.status).toBe(409);
    await queue.close();
  });

  it("when voices are listed, then each has its language and a description, and the characters have theirs", async () => {
    const res = await request(gw.app).get("/api/voices").auth(key, { type: "bearer" });
    expect(res.status).toBe(200);
    const { voices } = res.body as { voices: Voice[] };
    expect(voices).toEqual(VOICES);
    for (const id of ["Witch", "Mage", "Succubus", "Lightning"]) expect(voices.map((v) => v.id)).toContain(id);
  });

  it("when several speech requests arrive while a text job streams, then all complete and the text job keeps reporting progress", async () => {
    const textId = submittedId(
      await request(gw.app)
        .post("/api/text/default")
        .auth(key, { type: "bearer" })
        .send({ ...defaultRequest(), samplingParams: { max_tokens: 200 } }),
    );
    const progress: number[] = [];
    let done = false;
    const watcher = (async () => {
      while (!done) {
        const record = (await request(gw.app).get(`/api/v2/status/${textId}`).auth(key, { type: "bearer" }))
          .body as StatusRecord;
        if (record.status === "processing") progress.push(record.progress ?? 0);
        else done = true;
        await sleep(20);
      }
    })();
    const replies = await Promise.all(
      ["mp3", "opus", "flac", "wav"].map((format) => speak({ text: TEXT, voice: "Mage", format })),
    );
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    for (const [i, format] of (["mp3", "opus", "flac", "wav"] as const).entries())
      expect((await measured(replies[i]!, format)).loud).toBe(true);
    await watcher;
    expect(progress.every((p, i) => i === 0 || p >= progress[i - 1]!)).toBe(true);
  }, 240_000); // a hang guard for loaded machines, not a timing
});
