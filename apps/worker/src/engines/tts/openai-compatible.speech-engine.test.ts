import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import type { SpeechRequest } from "@chorus/contracts";
import { encodeAudio } from "@chorus/audio";
import { voicedSignal } from "../../../../../test-support/audio/test-signals.js";
import { FAKE_SAMPLE_RATE, startFakeSpeechServer, type FakeSpeechServer } from "./fake-speech-server.test-helpers.js";
import {
  OpenAiCompatibleSpeechEngine,
  speechUrl,
  type OpenAiCompatibleSpeechEngineOptions,
} from "./openai-compatible.speech-engine.js";
import { describeSpeechEngineContract } from "./speech-engine.contract.js";
import { SpeechEngineError } from "./speech-engine.js";

const API_KEY = "sk-test-0123456789abcdef";
let contractServer: FakeSpeechServer;

describeSpeechEngineContract("openai-compatible (fake server on 127.0.0.1)", async () => {
  contractServer = await startFakeSpeechServer();
  return new OpenAiCompatibleSpeechEngine({ baseUrl: contractServer.baseUrl, model: "tts-1", apiKey: API_KEY });
});
afterAll(async () => contractServer?.close());

const request = (overrides: Partial<SpeechRequest> = {}): SpeechRequest => ({
  text: "Hello there, witch.",
  voice: "Witch",
  speed: 1.25,
  format: "mp3",
  ...overrides,
});
const never = (): AbortSignal => new AbortController().signal;

async function failure(outcome: Promise<unknown>): Promise<SpeechEngineError> {
  const error = await outcome.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof SpeechEngineError)) throw new Error(`expected a SpeechEngineError, got ${String(error)}`);
  return error;
}

describe("OpenAiCompatibleSpeechEngine", () => {
  let server: FakeSpeechServer;
  let engine: OpenAiCompatibleSpeechEngine;
  const make = (options: Partial<OpenAiCompatibleSpeechEngineOptions> = {}): OpenAiCompatibleSpeechEngine =>
    new OpenAiCompatibleSpeechEngine({ baseUrl: server.baseUrl, model: "kokoro", apiKey: API_KEY, ...options });

  beforeAll(async () => {
    server = await startFakeSpeechServer();
  });
  afterEach(async () => {
    server.requests.length = 0;
    await engine?.close();
  });
  afterAll(async () => server.close());

  it("when synthesizing, then it POSTs model, input, mapped voice, speed and response_format with the bearer key", async () => {
    engine = make();
    await engine.synthesize(request(), never());
    expect(server.requests).toHaveLength(1);
    const [sent] = server.requests;
    expect(sent).toMatchObject({ method: "POST", path: "/v1/audio/speech" });
    expect(sent?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent?.headers["content-type"]).toBe("application/json");
    expect(sent?.body).toEqual({
      model: "kokoro",
      input: "Hello there, witch.",
      voice: "fable",
      speed: 1.25,
      response_format: "mp3",
    });
  });

  it("when no API key is configured, then no Authorization header is sent", async () => {
    engine = make({ apiKey: undefined });
    await engine.synthesize(request(), never());
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
  });

  it.each([
    ["http://h:1", "http://h:1/v1/audio/speech"],
    ["http://h:1/", "http://h:1/v1/audio/speech"],
    ["http://h:1/v1", "http://h:1/v1/audio/speech"],
    ["http://h:1/api/v1/", "http://h:1/api/v1/audio/speech"],
  ])("when the base URL is %s, then the speech endpoint is %s", (baseUrl, url) => expect(speechUrl(baseUrl)).toBe(url));

  it("when the server answers with audio, then the bytes are passed through unchanged", async () => {
    const mp3 = await encodeAudio(
      { samples: voicedSignal(0.4, FAKE_SAMPLE_RATE), sampleRate: FAKE_SAMPLE_RATE },
      "mp3",
    );
    server.enqueue({ kind: "bytes", body: mp3, contentType: "audio/mpeg" });
    engine = make();
    const audio = await engine.synthesize(request(), never());
    expect(Buffer.compare(audio.bytes, Buffer.from(mp3))).toBe(0);
    expect(audio).toMatchObject({
      format: "mp3",
      contentType: "audio/mpeg",
      sampleRate: null,
      durationSeconds: null,
      engine: "openai-compatible",
    });
  });

  it("when pcm is asked for, then the content type and sample rate are the configured raw rate", async () => {
    engine = make({ pcmSampleRate: FAKE_SAMPLE_RATE });
    const audio = await engine.synthesize(request({ format: "pcm" }), never());
    expect(audio.contentType).toBe("audio/L16;rate=24000");
    expect(audio.sampleRate).toBe(24000);
    expect(audio.durationSeconds).toBe(audio.bytes.length / 2 / 24000);
  });

  it("when a voice has no mapping, then it fails as UNSUPPORTED_VOICE naming it, without calling the server", async () => {
    engine = make({ voiceMap: { Witch: "af_bella", Mage: "am_adam" } });
    const error = await failure(engine.synthesize(request({ voice: "en-scotland-male" }), never()));
    expect(error).toMatchObject({ code: "UNSUPPORTED_VOICE", retryable: false });
    expect(error.message).toBe(
      `voice "en-scotland-male" is not available on speech server ${new URL(server.baseUrl).host} (voices mapped: Witch, Mage)`,
    );
    expect(server.requests).toHaveLength(0);
  });

  it("when a format is not in the server's list, then it fails as UNSUPPORTED_FORMAT naming it, without calling the server", async () => {
    engine = make({ formats: ["mp3", "wav"] });
    const error = await failure(engine.synthesize(request({ format: "opus" }), never()));
    expect(error).toMatchObject({ code: "UNSUPPORTED_FORMAT", retryable: false });
    expect(error.message).toContain('format "opus" is not available');
    expect(error.message).toContain("(it offers: mp3, wav)");
    expect(server.requests).toHaveLength(0);
  });

  it("when the server returns another container than asked, then it fails saying what came back", async () => {
    const wav = await encodeAudio(
      { samples: voicedSignal(0.2, FAKE_SAMPLE_RATE), sampleRate: FAKE_SAMPLE_RATE },
      "wav",
    );
    server.enqueue(
      { kind: "bytes", body: wav, contentType: "audio/wav" },
      { kind: "bytes", body: new Uint8Array(), contentType: "audio/ogg" },
    );
    engine = make();
    const wrong = await failure(engine.synthesize(request({ format: "opus" }), never()));
    expect(wrong.message).toContain("returned wav audio when opus was asked for");
    expect(wrong).toMatchObject({ code: "SYNTHESIS_FAILED", retryable: false });
    expect((await failure(engine.synthesize(request({ format: "opus" }), never()))).message).toContain(
      "returned an empty body",
    );
  });

  it("when the server refuses the request (4xx), then the error carries its message, is not retryable and never shows the key", async () => {
    server.enqueue({
      kind: "status",
      status: 400,
      body: JSON.stringify({ error: { message: `Voice fable not found (key ${API_KEY})` } }),
    });
    engine = make();
    const error = await failure(engine.synthesize(request(), never()));
    expect(error).toMatchObject({ code: "SYNTHESIS_FAILED", retryable: false });
    expect(error.message).toContain("answered HTTP 400: Voice fable not found (key [redacted])");
    expect(error.message).not.toContain(API_KEY);
  });

  it.each([
    [500, "SYNTHESIS_FAILED"],
    [503, "UNAVAILABLE"],
    [429, "UNAVAILABLE"],
  ])("when the server answers %i, then the error is retryable (%s)", async (status, code) => {
    server.enqueue({ kind: "status", status, body: JSON.stringify({ detail: "busy" }) });
    engine = make();
    expect(await failure(engine.synthesize(request(), never()))).toMatchObject({ code, retryable: true });
  });

  it("when the server never answers, then it fails after the timeout as UNAVAILABLE, retryable", async () => {
    server.enqueue({ kind: "hang" });
    engine = make({ timeoutMs: 200 });
    const error = await failure(engine.synthesize(request(), never()));
    expect(error).toMatchObject({ code: "UNAVAILABLE", retryable: true });
    expect(error.message).toContain("did not answer within 200 ms");
  });

  it("when nothing listens at the address, then it fails as UNAVAILABLE naming the host, not the key", async () => {
    const closed = await startFakeSpeechServer();
    await closed.close();
    engine = new OpenAiCompatibleSpeechEngine({ baseUrl: closed.baseUrl, model: "tts-1", apiKey: API_KEY });
    const error = await failure(engine.synthesize(request(), never()));
    expect(error).toMatchObject({ code: "UNAVAILABLE", retryable: true });
    expect(error.message).toContain(`could not reach speech server ${new URL(closed.baseUrl).host}`);
    expect(error.message).not.toContain(API_KEY);
  });

  it("when closed while a request waits, then it rejects with CLOSED", async () => {
    server.enqueue({ kind: "hang" });
    engine = make();
    const outcome = engine.synthesize(request(), never());
    while (server.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
    await engine.close();
    expect(await failure(outcome)).toMatchObject({ code: "CLOSED" });
  });
});
