import type { MessagePort } from "node:worker_threads";
import type { AudioFormat } from "@chorus/contracts";
import type { EspeakSettings } from "./espeak-voices.js";

/** One synthesis, sent by the engine to a speech thread. */
export interface EspeakJob {
  /** The text, already split at sentence boundaries. */
  chunks: string[];
  settings: EspeakSettings;
  format: AudioFormat;
  /**
   * Streamed speech: the thread posts each encoded piece here as it is made (an EspeakPiece, its
   * bytes moved), then `null` once the last is out; the result then carries no bytes.
   */
  pieces?: MessagePort;
}

export interface EspeakPiece {
  /** An ArrayBuffer of its own. */
  bytes: ArrayBuffer;
  sampleRate: number;
}

export interface EspeakJobResult {
  /** Transferred, not copied. */
  bytes: ArrayBuffer;
  sampleRate: number;
  durationSeconds: number;
}
