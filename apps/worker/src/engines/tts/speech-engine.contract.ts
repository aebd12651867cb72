import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import {
  AUDIO_FORMATS,
  AUDIO_FORMAT_INFO,
  VOICE_IDS,
  type AudioFormat,
  type SpeechRequest,
  type VoiceId,
} from "@chorus/contracts";
import { measureAudio, type MeasuredAudio } from "./measure-audio.test-helpers.js";
import { SpeechEngineError, type SpeechEngine, type SynthesizedAudio } from "./speech-engine.js";

/**
 * What every speech engine promises, whatever its voices sound like: run it from each engine's
 * test file. Audio is checked by decoding it (container magic and header fields, duration, not
 * silence), never by trusting what the engine says about it.
 */
export interface SpeechEngineContractOptions {
  /** Per-test time limit. */
  testTimeoutMs?: number;
  /** Formats the engine under test is set up to produce (default: all five). */
  formats?: readonly AudioFormat[];
}

/** 24 words: long enough for a duration to mean something, short enough to be quick. */
export const CONTRACT_TEXT =
  "The quick brown fox jumps over the lazy dog. Then it runs into the forest, where the old owl watches it from a tall tree.";
const WORDS = CONTRACT_TEXT.split(/\s+/).length;

/** Seconds a speaker at 175 words per minute × speed would take; real voices land within 0.5-2× of it. */
function nominalSeconds(speed: number): number {
  return (WORDS / (175 * speed)) * 60;
}

export function describeSpeechEngineContract(
  name: string,
  makeEngine: () => Promise<SpeechEngine>,
  options: SpeechEngineContractOptions = {},
): void {
  const timeout = options.testTimeoutMs ?? 30_000;
  const formats = options.formats ?? AUDIO_FORMATS;
  /** The format used where any would do: WAV, the cheapest to check, when the engine offers it. */
  const measurable: AudioFormat = formats.includes("wav") ? "wav" : (formats[0] as AudioFormat);

  describe(`SpeechEngine contract: ${name}`, () => {
    let engine: SpeechEngine;
    let closed = false;
    const request = (overrides: Partial<SpeechRequest> = {}): SpeechRequest => ({
      text: CONTRACT_TEXT,
      voice: engine.voices[0] as VoiceId,
      speed: 1,
      format: measurable,
      ...overrides,
    });
    const synthesize = (
      overrides: Partial<SpeechRequest> = {},
      signal = new AbortController().signal,
    ): Promise<SynthesizedAudio> => engine.synthesize(request(overrides), signal);

    beforeAll(async () => {
      engine = await makeEngine();
    }, timeout);

    afterAll(async () => {
      if (!closed) await engine?.close();
    }, timeout);

    it("has a name, and lists the catalogue voices and formats it serves", () => {
      expect(engine.name).toMatch(/\S/);
      expect(engine.voices.length).toBeGreaterThan(0);
      for (const voice of engine.voices) expect(VOICE_IDS).toContain(voice);
      expect([...engine.formats].sort()).toEqual([...formats].sort());
    });

    it(
      "when a catalogue voice it does not list is asked for, then it fails at once with UNSUPPORTED_VOICE",
      async () => {
        const missing = VOICE_IDS.find((voice) => !engine.voices.includes(voice));
        const voice = missing ?? ("no-such-voice" as VoiceId);
        await expect(synthesize({ voice })).rejects.toMatchObject({
          name: "SpeechEngineError",
          code: "UNSUPPORTED_VOICE",
          retryable: false,
        });
      },
      timeout,
    );

    it.each([...formats])(
      "when the format is %s, then the audio decodes, has a plausible length and is not silence",
      async (format) => {
        const audio = await synthesize({ format });
        expect(audio.format).toBe(format);
        expect(audio.engine).toBe(engine.name);
        const measured: MeasuredAudio = await measureAudio(audio);
        expect(audio.contentType).toBe(
          format === "pcm" ? `audio/L16;rate=${measured.sampleRate}` : AUDIO_FORMAT_INFO[format].contentType,
        );
        expect(measured.durationSeconds).toBeGreaterThan(nominalSeconds(1) * 0.5);
        expect(measured.durationSeconds).toBeLessThan(nominalSeconds(1) * 2);
        expect(measured.loud).toBe(true);
        if (audio.sampleRate !== null) expect(audio.sampleRate).toBe(measured.sampleRate);
        if (audio.durationSeconds !== null)
          expect(Math.abs(audio.durationSeconds - measured.durationSeconds)).toBeLessThan(0.1);
      },
      timeout,
    );

    it(
      "when the speed changes, then the audio's length follows it across the whole range",
      async () => {
        const speeds = [0.25, 0.5, 1, 2, 4];
        const durations: number[] = [];
        for (const speed of speeds) durations.push((await measureAudio(await synthesize({ speed }))).durationSeconds);
        durations.forEach((seconds, i) => {
          const speed = speeds[i] as number;
          expect(seconds).toBeGreaterThan(nominalSeconds(speed) * 0.5);
          expect(seconds).toBeLessThan(nominalSeconds(speed) * 2);
          // Each doubling of speed shortens the audio by at least a quarter.
          if (i > 0) expect(seconds).toBeLessThan((durations[i - 1] as number) * 0.75);
        });
      },
      timeout * 2,
    );

    it(
      "when the signal is already aborted, then it rejects with the signal's reason",
      async () => {
        const controller = new AbortController();
        const reason = new Error("aborted before the start");
        controller.abort(reason);
        await expect(synthesize({}, controller.signal)).rejects.toBe(reason);
      },
      timeout,
    );

    it(
      "when aborted while synthesizing, then it rejects with the signal's reason and the engine still works",
      async () => {
        const controller = new AbortController();
        const reason = new Error("aborted mid-synthesis");
        const outcome = synthesize({ text: CONTRACT_TEXT.repeat(6) }, controller.signal);
        setImmediate(() => controller.abort(reason));
        await expect(outcome).rejects.toBe(reason);
        expect((await measureAudio(await synthesize())).loud).toBe(true);
      },
      timeout,
    );

    it(
      "when two syntheses run at once, then both complete with their own format",
      async () => {
        const [first, second] = await Promise.all([
          synthesize({ format: formats[0] }),
          synthesize({ format: formats[formats.length - 1] }),
        ]);
        expect(first.format).toBe(formats[0]);
        expect(second.format).toBe(formats[formats.length - 1]);
        for (const audio of [first, second]) expect((await measureAudio(audio)).loud).toBe(true);
      },
      timeout,
    );

    it(
      "when closed, then close() resolves and later syntheses reject with CLOSED",
      async () => {
        closed = true;
        await expect(engine.close()).resolves.toBeUndefined();
        const outcome = synthesize();
        await expect(outcome).rejects.toBeInstanceOf(SpeechEngineError);
        await expect(outcome).rejects.toMatchObject({ code: "CLOSED", retryable: false });
      },
      timeout,
    );
  });
}
