import type { AudioFormat } from "@chorus/contracts";
import type { EspeakSettings } from "./espeak-voices.js";

/** One synthesis, sent by the engine to a speech thread. */
export interface EspeakJob {
  /** The text, already split at sentence boundaries. */
  chunks: string[];
  settings: EspeakSettings;
  format: AudioFormat;
}

export interface EspeakJobResult {
  /** Transferred, not copied. */
  bytes: ArrayBuffer;
  sampleRate: number;
  durationSeconds: number;
}
