import type { AudioFormat, SpeechRequest, VoiceId } from "@chorus/contracts";

/** Finished audio, ready to send as the response body. */
export interface SynthesizedAudio {
  /** The encoded file (or raw samples for `pcm`), exactly what the client receives. */
  bytes: Buffer;
  format: AudioFormat;
  /** For the Content-Type header; for `pcm` it carries the rate (`audio/L16;rate=22050`). */
  contentType: string;
  /** Samples per second, when known: always for audio made in-process, for `pcm` from any engine. */
  sampleRate: number | null;
  /** Playing time in seconds, when known (same rule as sampleRate). */
  durationSeconds: number | null;
  /** Which engine produced it (for logs and an `X-Speech-Engine`-style header). */
  engine: string;
}

/** What a client must know before the first piece: the headers of a streamed answer. */
export interface AudioPieceInfo {
  contentType: string;
  sampleRate: number | null;
}

/** Takes one piece of audio being made (see SpeechEngine.synthesize). */
export type AudioPieceHandler = (piece: Buffer, info: AudioPieceInfo) => Promise<void>;

/**
 * A text-to-speech engine: eSpeak NG in worker threads, or a remote OpenAI-compatible server.
 * Requests arrive validated (defaults filled, see speechRequestSchema in @chorus/contracts).
 */
export interface SpeechEngine {
  readonly name: string;
  /** Catalogue voices this engine can speak with; others fail with UNSUPPORTED_VOICE. */
  readonly voices: readonly VoiceId[];
  /** Formats this engine can produce; others fail with UNSUPPORTED_FORMAT. */
  readonly formats: readonly AudioFormat[];
  /**
   * Resolves with the audio in `request.format`. Aborting `signal` rejects with the signal's
   * reason and stops the work; failures reject with a SpeechEngineError.
   *
   * With `onPiece`, the audio is also handed over as it is made, in order, each call awaited before
   * the next: the pieces, concatenated, are `bytes` (a file of the format from its first byte, see
   * docs/speech.md). An engine that cannot make audio in pieces hands it over as one. A rejecting
   * `onPiece` stops the work and rejects the synthesis with its error.
   */
  synthesize(request: SpeechRequest, signal: AbortSignal, onPiece?: AudioPieceHandler): Promise<SynthesizedAudio>;
  /** Stops all work and frees threads or connections; later calls reject. */
  close(): Promise<void>;
}

export type SpeechEngineErrorCode =
  /** The engine cannot speak with this voice (not in its voice map). */
  | "UNSUPPORTED_VOICE"
  /** The engine cannot produce this format (not in the remote server's format list). */
  | "UNSUPPORTED_FORMAT"
  /** The engine ran and failed (eSpeak error, thread crash, remote 4xx/5xx, wrong audio back). */
  | "SYNTHESIS_FAILED"
  /** The remote server did not answer in time, or could not be reached. */
  | "UNAVAILABLE"
  /** close() was called. */
  | "CLOSED";

/**
 * Why a synthesis failed, in words safe to show a client (no secrets). `retryable` tells the job
 * processor whether another attempt may succeed (else: fail the job at once).
 */
export class SpeechEngineError extends Error {
  override readonly name = "SpeechEngineError";

  constructor(
    readonly code: SpeechEngineErrorCode,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}
