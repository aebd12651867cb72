import { describe, expect, it } from "@jest/globals";
import { VOICE_IDS, type SpeechRequest, type VoiceId } from "@chorus/contracts";
import { splitIntoChunks } from "./sentence-splitter.js";
import { EspeakSpeechEngine } from "./espeak.speech-engine.js";
import { measureAudio } from "./measure-audio.test-helpers.js";
import { CONTRACT_TEXT, describeSpeechEngineContract } from "./speech-engine.contract.js";
import { SpeechEngineError } from "./speech-engine.js";

describeSpeechEngineContract("espeak-ng", () => Promise.resolve(new EspeakSpeechEngine({ concurrency: 2 })), {
  testTimeoutMs: 60_000,
});

const TIMEOUT = 60_000;
/** A fresh signal per call: one shared signal would collect a listener per waiting request. */
const never = (): AbortSignal => new AbortController().signal;
const request = (overrides: Partial<SpeechRequest> = {}): SpeechRequest => ({
  text: CONTRACT_TEXT,
  voice: "en-us-female",
  speed: 1,
  format: "pcm",
  ...overrides,
});

async function withEngine<T>(
  options: ConstructorParameters<typeof EspeakSpeechEngine>[0],
  use: (engine: EspeakSpeechEngine) => Promise<T>,
): Promise<T> {
  const engine = new EspeakSpeechEngine(options);
  try {
    return await use(engine);
  } finally {
    await engine.close();
  }
}

describe("EspeakSpeechEngine", () => {
  it(
    "when every voice of the catalogue speaks, then each gives audio that is not silence",
    async () => {
      await withEngine({ concurrency: 2 }, async (engine) => {
        const results = await Promise.all(
          VOICE_IDS.map(
            async (voice) =>
              [
                voice,
                await measureAudio(
                  await engine.synthesize(request({ voice, text: "Hello, can you hear me?" }), never()),
                ),
              ] as const,
          ),
        );
        for (const [voice, measured] of results)
          expect({ voice, loud: measured.loud, long: measured.durationSeconds > 0.8 }).toEqual({
            voice,
            loud: true,
            long: true,
          });
      });
    },
    TIMEOUT,
  );

  it(
    "when the Mage and Lightning read the same text, then the Mage's unhurried pace makes it longer",
    async () => {
      await withEngine({ concurrency: 1 }, async (engine) => {
        const [mage, lightning] = [
          await engine.synthesize(request({ voice: "Mage" }), never()),
          await engine.synthesize(request({ voice: "Lightning" }), never()),
        ];
        expect(mage.durationSeconds).toBeGreaterThan((lightning.durationSeconds as number) * 1.1);
        expect(mage.bytes.equals(lightning.bytes)).toBe(false);
      });
    },
    TIMEOUT,
  );

  it(
    "when the text is longer than one piece, then it is spoken in pieces and nothing is lost",
    async () => {
      const text = `${CONTRACT_TEXT} `.repeat(4);
      expect(splitIntoChunks(text, 130)).toHaveLength(4);
      await withEngine({ concurrency: 1, maxChunkChars: 130 }, async (engine) => {
        const split = await engine.synthesize(request({ text }), never());
        const whole = await withEngine({ concurrency: 1 }, (single) => single.synthesize(request({ text }), never()));
        expect(split.durationSeconds).toBeGreaterThan((whole.durationSeconds as number) * 0.9);
        expect(split.durationSeconds).toBeLessThan((whole.durationSeconds as number) * 1.1);
      });
    },
    TIMEOUT,
  );

  it(
    "when concurrency is 2 and two requests arrive together, then two threads speak them",
    async () => {
      await withEngine({ concurrency: 2 }, async (engine) => {
        expect(engine.threadCount).toBe(0);
        await Promise.all([engine.synthesize(request(), never()), engine.synthesize(request(), never())]);
        expect(engine.threadCount).toBe(2);
      });
    },
    TIMEOUT,
  );

  it(
    "when concurrency is 1 and three requests arrive together, then one thread speaks them in turn",
    async () => {
      await withEngine({ concurrency: 1 }, async (engine) => {
        const results = await Promise.all([1, 2, 3].map(() => engine.synthesize(request(), never())));
        expect(results.every((audio) => audio.bytes.length > 0)).toBe(true);
        expect(engine.threadCount).toBe(1);
      });
    },
    TIMEOUT,
  );

  it(
    "when a long text is synthesized, then the event loop keeps turning meanwhile (the work is off the main thread)",
    async () => {
      await withEngine({ concurrency: 1 }, async (engine) => {
        await engine.synthesize(request({ text: "Warm up." }), never());
        let turns = 0;
        let running = true;
        const spin = (): void => {
          turns += 1;
          if (running) setImmediate(spin);
        };
        setImmediate(spin);
        await engine.synthesize(request({ text: `${CONTRACT_TEXT} `.repeat(20), format: "mp3" }), never());
        running = false;
        expect(turns).toBeGreaterThan(100);
      });
    },
    TIMEOUT,
  );

  it(
    "when a job names a voice this worker does not know, then it fails at once as UNSUPPORTED_VOICE, not retryable",
    async () => {
      await withEngine({ concurrency: 1 }, async (engine) => {
        const outcome = engine.synthesize(request({ voice: "nova" as VoiceId }), never());
        await expect(outcome).rejects.toBeInstanceOf(SpeechEngineError);
        await expect(outcome).rejects.toMatchObject({
          code: "UNSUPPORTED_VOICE",
          retryable: false,
          message: 'eSpeak NG has no voice "nova"',
        });
      });
    },
    TIMEOUT,
  );
});
