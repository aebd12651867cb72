import type { ErrorEnvelope, StatusRecord } from "@chorus/contracts";
import request from "supertest";
import { EspeakSpeechEngine } from "../src/engines/tts/espeak.speech-engine.js";
import { measureAudio } from "../src/engines/tts/measure-audio.test-helpers.js";
import type { SynthesizedAudio } from "../src/engines/tts/speech-engine.js";
import type { LlmEngine } from "../src/engines/llm/llm-engine.js";
import { bytesParser, characterRequest, defaultRequest, describeWithModel } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { errorOf, submittedId } from "../../../test-support/response-body.js";
import { loadFixtureEngine, startTestWorker, type TestWorker } from "../../../test-support/worker.js";
import { finalRecord } from "../../../test-support/records.js";

const TTS_BUDGET = 50;
/** A prompt the fixture model answers with words (a reply of only white space would have nothing to speak). */
const SAMPLING = { max_tokens: 40, temperature: 0.1, seed: 7 };

describeWithModel("speak on completion: the reply synthesized with it, served at audioUrl", () => {
  let gw: TestGateway;
  let worker: TestWorker;
  let llm: LlmEngine;
  let speech: EspeakSpeechEngine;
  let key: string;
  beforeAll(async () => {
    const prefix = uniquePrefix("speak");
    gw = await startTestGateway(prefix);
    llm = await loadFixtureEngine();
    speech = new EspeakSpeechEngine({ concurrency: 1 });
    worker = await startTestWorker(prefix, llm, { speech: { speech, concurrency: 1, audioTtlSeconds: 60 } });
    key = await gw.createKey({ limits: { tts: TTS_BUDGET, status: 100_000 } });
  }, 120_000);
  afterAll(async () => {
    await worker.close();
    await speech.close();
    await llm.close();
    await gw.close();
  }, 60_000);

  const submit = (body: object, model = "default", k = key) =>
    request(gw.app).post(`/api/text/${model}`).auth(k, { type: "bearer" }).send(body);
  const finished = (id: string, on = gw, k = key): Promise<StatusRecord> => finalRecord(on.app, k, id);
  const fetchAudio = (path: string, k = key) =>
    request(gw.app).get(path).auth(k, { type: "bearer" }).buffer(true).parse(bytesParser);

  it("when a character chat asks for speak in wav, then the completed record has audioUrl and GET serves playable wav in the character's voice, charged to the speech budget", async () => {
    const res = await submit(
      { ...characterRequest("Witch", "Tell me about your cat."), samplingParams: SAMPLING, speak: { format: "wav" } },
      "Witch",
    );
    expect(res.status).toBe(200);
    const id = submittedId(res);
    const record = await finished(id);
    expect(record).toMatchObject({ status: "completed", audioUrl: `/api/v2/status/${id}/audio` });
    expect(record.audioError).toBeUndefined();
    expect(record.audioTruncated).toBeUndefined(); // a short reply is spoken whole (asserted below)

    const audio = await fetchAudio(record.audioUrl as string);
    expect(audio.status).toBe(200);
    expect(audio.headers["content-type"]).toBe("audio/wav");
    expect(audio.headers["x-ratelimit-limit"]).toBe(String(TTS_BUDGET));
    const remaining = Number(audio.headers["x-ratelimit-remaining"]);
    expect(remaining).toBe(TTS_BUDGET - 2); // one unit for the submit with speak, one for this GET
    const measured = await measureAudio({
      bytes: audio.body as Buffer,
      format: "wav",
      contentType: "audio/wav",
    } as SynthesizedAudio);
    expect(measured.loud).toBe(true);
    expect(measured.durationSeconds).toBeGreaterThan(0.3);

    // The same text through the speech endpoint: as long as in the Witch's voice (eSpeak's noise
    // sources make bytes differ run to run, never the length), not as long as in the default voice.
    const spokenBy = async (voice: string) => {
      // Whole, as a spoken reply is made (streamed speech is cut into other chunks, so other lengths).
      const direct = await request(gw.app)
        .post("/api/tts")
        .auth(key, { type: "bearer" })
        .set("Prefer", "stream=false")
        .send({ text: record.reply, voice, format: "wav" });
      expect(direct.status).toBe(200);
      return Number(direct.headers["content-length"]);
    };
    expect(await spokenBy("Witch")).toBe((audio.body as Buffer).length);
    expect(await spokenBy("en-us-female")).not.toBe((audio.body as Buffer).length);

    // Fetched again (the twin path too): the same audio, and one more unit of the speech budget
    // (after the two speech requests above).
    const again = await fetchAudio(`/api/status/${id}/audio`);
    expect(again.status).toBe(200);
    expect(Buffer.compare(again.body as Buffer, audio.body as Buffer)).toBe(0); // stored, not made again
    expect(Number(again.headers["x-ratelimit-remaining"])).toBe(remaining - 3);
  });

  it.each([
    ["mp3", "audio/mpeg"],
    ["opus", "audio/ogg"],
    ["flac", "audio/flac"],
  ] as const)(
    "when speak asks for %s with a voice and speed, then the audio is that format and decodes as speech",
    async (format, contentType) => {
      const id = submittedId(
        await submit({
          ...defaultRequest("Once upon a time"),
          samplingParams: SAMPLING,
          speak: { format, voice: "en-gb-male", speed: 1.5 },
        }),
      );
      const record = await finished(id);
      expect(record.audioUrl).toBe(`/api/v2/status/${id}/audio`);
      const audio = await fetchAudio(record.audioUrl as string);
      expect(audio.status).toBe(200);
      expect(audio.headers["content-type"]).toBe(contentType);
      const measured = await measureAudio({ bytes: audio.body as Buffer, format, contentType } as SynthesizedAudio);
      expect(measured.loud).toBe(true);
    },
  );

  it("when another key asks for the audio, then it is 404 as for the record", async () => {
    const id = submittedId(
      await submit({ ...defaultRequest("Once upon a time"), samplingParams: SAMPLING, speak: {} }),
    );
    expect((await finished(id)).audioUrl).toBeDefined();
    const other = await gw.createKey();
    const res = await fetchAudio(`/api/v2/status/${id}/audio`, other);
    expect(res.status).toBe(404);
    expect((JSON.parse((res.body as Buffer).toString()) as ErrorEnvelope).error.code).toBe("NOT_FOUND");
  });

  it("when a request did not ask for speak, then its record has no audioUrl and the audio path is 404", async () => {
    const id = submittedId(await submit({ ...defaultRequest("Once upon a time"), samplingParams: SAMPLING }));
    const record = await finished(id);
    expect(record.status).toBe("completed");
    expect(record.audioUrl).toBeUndefined();
    expect((await fetchAudio(`/api/v2/status/${id}/audio`)).status).toBe(404);
    expect((await fetchAudio(`/api/v2/status/not-an-id/audio`)).status).toBe(404);
  });

  it("when a key without the tts scope asks for speak, then the submit is 403", async () => {
    const textOnly = await gw.createKey({ scopes: ["text:*"] });
    const res = await submit({ ...defaultRequest(), speak: {} }, "default", textOnly);
    expect(res.status).toBe(403);
    expect(errorOf(res).code).toBe("FORBIDDEN");
    expect((await submit(defaultRequest(), "default", textOnly)).status).toBe(200);
  });

  it("when the worker has no speech engine, then the request still completes with its reply and audioError, and no audio", async () => {
    const prefix = uniquePrefix("speak-mute");
    const mute = await startTestGateway(prefix);
    const textOnly = await startTestWorker(prefix, llm);
    try {
      // Polled every 25 ms: the default status budget (200 a minute) would run out on a slow machine.
      const muteKey = await mute.createKey({ limits: { status: 100_000 } });
      const id = submittedId(
        await request(mute.app)
          .post("/api/text/default")
          .auth(muteKey, { type: "bearer" })
          .send({ ...defaultRequest("Once upon a time"), samplingParams: SAMPLING, speak: {} }),
      );
      const record = await finished(id, mute, muteKey);
      expect(record).toMatchObject({
        status: "completed",
        audioError: "text-to-speech is not available on the worker that generated the reply",
      });
      expect(record.reply).toEqual(expect.any(String));
      expect(record.audioUrl).toBeUndefined();
      expect((await request(mute.app).get(`/api/v2/status/${id}/audio`).auth(muteKey, { type: "bearer" })).status).toBe(
        404,
      );
    } finally {
      await textOnly.close();
      await mute.close();
    }
  });

  it.each([
    ["an unknown format", { format: "aac" }, "speak.format"],
    ["speed above 4", { speed: 4.5 }, "speak.speed"],
    ["speed below 0.25", { speed: 0.1 }, "speak.speed"],
    ["speed as a string", { speed: "fast" }, "speak.speed"],
    ["an unknown voice", { voice: "Gandalf" }, "speak.voice"],
    ["an unknown field", { text: "say this" }, "speak.text"],
    ["not an object", "yes", "speak"],
  ])("when speak has %s, then the submit is 400 INVALID_PARAMETER naming it", async (_label, speak, parameter) => {
    const res = await submit({ ...defaultRequest(), speak });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: "INVALID_PARAMETER", details: { parameter } });
  });
});
