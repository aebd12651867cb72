import type { VoiceId } from "@chorus/contracts";
import { SpeechEngineError } from "./speech-engine.js";

/** How eSpeak NG speaks one public voice. */
export interface EspeakVoice {
  /** `-v`: language/accent plus a variant (`+f3`, `+m7`: formant and pitch-range presets). */
  spec: string;
  /** `-p`: 0-99, 50 being the variant's natural pitch. */
  pitch: number;
  /** Multiplies the speaking rate: a character's natural pace, before the request's `speed`. */
  pace: number;
}

/**
 * Every public voice, and only those: `satisfies` makes a voice added to the catalogue fail to compile here until
 * mapped.
 */
export const ESPEAK_VOICES = {
  Witch: { spec: "en-gb-x-rp+f5", pitch: 72, pace: 1.0 },
  Mage: { spec: "en-gb+m7", pitch: 30, pace: 0.9 },
  Succubus: { spec: "en-us+f2", pitch: 38, pace: 0.92 },
  Lightning: { spec: "en-us+m4", pitch: 64, pace: 1.15 },
  "en-us-female": { spec: "en-us+f3", pitch: 50, pace: 1 },
  "en-us-male": { spec: "en-us+m3", pitch: 50, pace: 1 },
  "en-us-nyc-male": { spec: "en-us-nyc+m1", pitch: 50, pace: 1 },
  "en-gb-female": { spec: "en-gb+f2", pitch: 50, pace: 1 },
  "en-gb-male": { spec: "en-gb+m1", pitch: 50, pace: 1 },
  "en-gb-rp-female": { spec: "en-gb-x-rp+f4", pitch: 50, pace: 1 },
  "en-gb-rp-male": { spec: "en-gb-x-rp+m2", pitch: 50, pace: 1 },
  "en-scotland-female": { spec: "en-gb-scotland+f2", pitch: 50, pace: 1 },
  "en-scotland-male": { spec: "en-gb-scotland+m3", pitch: 50, pace: 1 },
  "en-north-male": { spec: "en-gb-x-gbclan+m5", pitch: 50, pace: 1 },
  "en-midlands-female": { spec: "en-gb-x-gbcwmd+f1", pitch: 50, pace: 1 },
  "en-caribbean-female": { spec: "en-029+f3", pitch: 50, pace: 1 },
  "en-caribbean-male": { spec: "en-029+m2", pitch: 50, pace: 1 },
} as const satisfies Record<VoiceId, EspeakVoice>;

/** eSpeak NG's default rate and the range this build (without libsonic) can speak at. */
export const ESPEAK_WPM = { default: 175, min: 80, max: 450 } as const;

/**
 * Extra pause per word, in `-g` units, per unit of slowness below 80 wpm. Measured on this build:
 * at 80 wpm a word lasts about 0.63 s and each `-g` unit adds about 30 ms to it.
 */
const WORD_GAP_PER_SLOWNESS = 21;

/** Everything the thread needs to speak one request, as plain data. */
export interface EspeakSettings {
  voice: string;
  pitch: number;
  /** `-s`, within ESPEAK_WPM.min..max. */
  wordsPerMinute: number;
  /** `-g`: pauses between words, which is how speech slower than 80 wpm is made. */
  wordGap: number;
  /** > 1 when faster than 450 wpm: the rest of the speed-up is done by time-stretching the audio. */
  tempo: number;
}

/**
 * Maps a public voice and speed to eSpeak arguments. The request's speed scales the voice's pace
 * around 175 wpm; beyond what eSpeak can do, word gaps (slower) or time-stretching (faster) carry
 * the rest, so a slower speed always gives longer audio across the whole 0.25-4 range.
 */
export function espeakSettings(voiceId: VoiceId, speed: number): EspeakSettings {
  // A job queued by a newer gateway may name a voice this worker does not know yet.
  const voice = (ESPEAK_VOICES as Record<string, EspeakVoice | undefined>)[voiceId];
  if (!voice) throw new SpeechEngineError("UNSUPPORTED_VOICE", `eSpeak NG has no voice "${voiceId}"`, false);
  const target = ESPEAK_WPM.default * voice.pace * speed;
  const wordsPerMinute = Math.round(Math.min(ESPEAK_WPM.max, Math.max(ESPEAK_WPM.min, target)));
  const wordGap = target < ESPEAK_WPM.min ? Math.round((ESPEAK_WPM.min / target - 1) * WORD_GAP_PER_SLOWNESS) : 0;
  const tempo = target > ESPEAK_WPM.max ? target / ESPEAK_WPM.max : 1;
  return { voice: voice.spec, pitch: voice.pitch, wordsPerMinute, wordGap, tempo };
}
