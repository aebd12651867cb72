import {
  AUDIO_FORMATS,
  VOICE_IDS,
  contentTypeFor,
  type AudioFormat,
  type SpeechRequest,
  type VoiceId,
} from "@chorus/contracts";
import { splitForStreaming, splitIntoChunks } from "./sentence-splitter.js";
import { espeakSettings } from "./espeak-voices.js";
import type { EspeakJob, EspeakJobResult } from "./espeak.thread-protocol.js";
import { siblingModule } from "./module-worker.js";
import { openPieceChannel } from "./espeak.piece-channel.js";
import {
  SpeechEngineError,
  type AudioPieceHandler,
  type SpeechEngine,
  type SynthesizedAudio,
} from "./speech-engine.js";
import { ThreadCrashedError, ThreadPool, ThreadPoolClosedError } from "./thread-pool.js";

export interface EspeakSpeechEngineOptions {
  /**
   * Syntheses that may run at once, each in its own worker thread (~100-200 MB each while busy).
   * More than the cores available only adds waiting inside the CPU instead of in the queue.
   */
  concurrency: number;
  /**
   * Longest piece of text spoken in one eSpeak run. Long texts are split at sentence boundaries
   * into pieces up to this size; each run costs ~75 ms of start-up, so pieces are kept large.
   */
  maxChunkChars?: number;
}

export const DEFAULT_MAX_CHUNK_CHARS = 1000;

/**
 * eSpeak NG (WASM, GPL-3.0-or-later) run in worker threads: the engine that works offline, on any
 * CPU. Synthesis, joining and encoding happen in the threads; this side only splits the text,
 * picks the voice settings and hands out the work.
 */
export class EspeakSpeechEngine implements SpeechEngine {
  readonly name = "espeak-ng";
  readonly voices: readonly VoiceId[] = VOICE_IDS;
  readonly formats: readonly AudioFormat[] = AUDIO_FORMATS;
  private readonly pool: ThreadPool<EspeakJob, EspeakJobResult>;
  private readonly maxChunkChars: number;

  constructor(options: EspeakSpeechEngineOptions) {
    this.pool = new ThreadPool(siblingModule("espeak.thread", import.meta.url), options.concurrency);
    this.maxChunkChars = options.maxChunkChars ?? DEFAULT_MAX_CHUNK_CHARS;
  }

  /** Threads alive now (started on demand, at most `concurrency`). */
  get threadCount(): number {
    return this.pool.threadCount;
  }

  async synthesize(
    request: SpeechRequest,
    signal: AbortSignal,
    onPiece?: AudioPieceHandler,
  ): Promise<SynthesizedAudio> {
    const job: EspeakJob = {
      // Streamed, the first chunk is about a sentence, so that its audio leaves soon.
      chunks: onPiece
        ? splitForStreaming(request.text, this.maxChunkChars)
        : splitIntoChunks(request.text, this.maxChunkChars),
      settings: espeakSettings(request.voice, request.speed),
      format: request.format,
    };
    const { result, bytes } = onPiece ? await this.runInPieces(job, signal, onPiece) : await this.runWhole(job, signal);
    return {
      bytes,
      format: request.format,
      contentType: contentTypeFor(request.format, result.sampleRate),
      sampleRate: result.sampleRate,
      durationSeconds: result.durationSeconds,
      engine: this.name,
    };
  }

  private async runWhole(job: EspeakJob, signal: AbortSignal) {
    try {
      const result = await this.pool.run(job, signal);
      return { result, bytes: Buffer.from(result.bytes) };
    } catch (error) {
      if (signal.aborted && error === signal.reason) throw error;
      throw toSpeechEngineError(error);
    }
  }

  private async runInPieces(job: EspeakJob, signal: AbortSignal, onPiece: AudioPieceHandler) {
    const stop = new AbortController();
    const describe = (sampleRate: number) => ({ contentType: contentTypeFor(job.format, sampleRate), sampleRate });
    const channel = openPieceChannel(onPiece, describe, stop);
    try {
      const [result, pieces] = await Promise.all([
        this.pool.run({ ...job, pieces: channel.threadEnd }, AbortSignal.any([signal, stop.signal]), [
          channel.threadEnd,
        ]),
        channel.drained,
      ]);
      return { result, bytes: Buffer.concat(pieces) };
    } catch (error) {
      if (stop.signal.aborted) throw stop.signal.reason; // onPiece failed: its error, as it is
      if (signal.aborted && error === signal.reason) throw error;
      throw toSpeechEngineError(error);
    } finally {
      channel.close();
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

function toSpeechEngineError(error: unknown): SpeechEngineError {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof ThreadPoolClosedError)
    return new SpeechEngineError("CLOSED", "the speech engine is closed", false);
  // A crashed thread (out of memory, say) may well succeed on a fresh one; an eSpeak error will not.
  if (error instanceof ThreadCrashedError) return new SpeechEngineError("SYNTHESIS_FAILED", message, true);
  return new SpeechEngineError("SYNTHESIS_FAILED", `eSpeak NG failed: ${message}`, false);
}
