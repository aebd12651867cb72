import type { AudioFormat } from "./audio-formats.js";
import type { VoiceId } from "./voices.js";

/** Bounds of a text-to-speech request; the schema, the engines and docs/speech.md read them here. */
export const SPEECH_LIMITS = {
  /** Characters (Unicode code points) of `text`. */
  textMaxChars: 4096,
  /** Speaking speed factor: 1 is the voice's natural pace, 2 twice as fast. */
  speed: { min: 0.25, max: 4.0, default: 1.0 },
} as const;

/** A text-to-speech request after validation: every field present, defaults filled in. */
export interface SpeechRequest {
  text: string;
  voice: VoiceId;
  speed: number;
  format: AudioFormat;
}
