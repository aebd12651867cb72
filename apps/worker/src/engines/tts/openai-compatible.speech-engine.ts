import {
  AUDIO_FORMATS,
  VOICE_IDS,
  contentTypeFor,
  type AudioFormat,
  type SpeechRequest,
  type VoiceId,
} from "@chorus/contracts";
import { decodeWav, describeAudioBytes, hasContainerSignature, sniffAudioFormat } from "@chorus/audio";
import type OpenAI from "openai";
import type { SpeechCreateParams } from "openai/resources/audio/speech";
import { apiRoot, createUpstreamClient } from "../openai-compatible/upstream-client.js";
import { speechServerError } from "./openai-compatible.speech-errors.js";
import {
  SpeechEngineError,
  type AudioPieceHandler,
  type SpeechEngine,
  type SynthesizedAudio,
} from "./speech-engine.js";

export interface OpenAiCompatibleSpeechEngineOptions {
  /** The server (`http://host:8880`) or its API root (`http://host:8880/v1`). */
  baseUrl: string;
  /** Sent as `model`: `tts-1`, `kokoro`, ... whatever the server serves. */
  model: string;
  /** Sent as `Authorization: Bearer`; never appears in errors. */
  apiKey?: string;
  /** Our voice id -> the server's voice name. Voices left out are refused with UNSUPPORTED_VOICE. */
  voiceMap?: Partial<Record<VoiceId, string>>;
  /** Formats the server can produce; others are refused with UNSUPPORTED_FORMAT. Default: all five. */
  formats?: readonly AudioFormat[];
  /** Sample rate of the server's raw `pcm` (it has no header to say so). OpenAI: 24000. */
  pcmSampleRate?: number;
  /** Longest wait for the whole answer, audio included. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** OpenAI's own six voices, which most compatible servers also accept by name. */
export const DEFAULT_OPENAI_VOICE_MAP: Readonly<Partial<Record<VoiceId, string>>> = {
  Witch: "fable",
  Mage: "onyx",
  Succubus: "shimmer",
  Lightning: "echo",
  "en-us-female": "nova",
  "en-us-male": "alloy",
};

export const DEFAULT_PCM_SAMPLE_RATE = 24000;
export const DEFAULT_TIMEOUT_MS = 60_000;

/** `.../v1` gets `/audio/speech` appended; anything else gets `/v1/audio/speech`. */
export function speechUrl(baseUrl: string): string {
  return `${apiRoot(baseUrl)}/audio/speech`;
}

/**
 * Any server speaking OpenAI's POST /v1/audio/speech (OpenAI, Kokoro-FastAPI, openedai-speech,
 * LocalAI...): lets operators plug in a neural voice server. The audio is passed through as the
 * server made it, after checking it is the container that was asked for.
 */
export class OpenAiCompatibleSpeechEngine implements SpeechEngine {
  readonly name = "openai-compatible";
  readonly voices: readonly VoiceId[];
  readonly formats: readonly AudioFormat[];
  /** Host and port only: the URL may carry credentials or tokens, error messages must not. */
  private readonly server: string;
  private readonly voiceMap: Readonly<Partial<Record<VoiceId, string>>>;
  private readonly pcmSampleRate: number;
  private readonly timeoutMs: number;
  private readonly client: OpenAI;
  private readonly closing = new AbortController();

  constructor(private readonly options: OpenAiCompatibleSpeechEngineOptions) {
    this.server = new URL(speechUrl(options.baseUrl)).host;
    this.voiceMap = options.voiceMap ?? DEFAULT_OPENAI_VOICE_MAP;
    this.voices = VOICE_IDS.filter((voice) => this.voiceMap[voice] !== undefined);
    this.formats = options.formats ?? AUDIO_FORMATS;
    this.pcmSampleRate = options.pcmSampleRate ?? DEFAULT_PCM_SAMPLE_RATE;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.client = createUpstreamClient(options);
  }

  /** The server's answer is checked whole before anything is handed on: `onPiece` gets it as one piece. */
  async synthesize(
    request: SpeechRequest,
    signal: AbortSignal,
    onPiece?: AudioPieceHandler,
  ): Promise<SynthesizedAudio> {
    if (this.closing.signal.aborted) throw new SpeechEngineError("CLOSED", "the speech engine is closed", false);
    if (signal.aborted) throw signal.reason;
    const voice = this.serverVoice(request.voice);
    this.checkFormat(request.format);
    const bytes = await this.fetchAudio(
      { model: this.options.model, input: request.text, voice, speed: request.speed, response_format: request.format },
      signal,
    );
    this.checkContainer(bytes, request.format);
    const audio = this.describe(bytes, request.format);
    await onPiece?.(bytes, audio);
    return audio;
  }

  close(): Promise<void> {
    this.closing.abort(new SpeechEngineError("CLOSED", "the speech engine was closed", false));
    return Promise.resolve();
  }

  private serverVoice(voice: VoiceId): string {
    const mapped = this.voiceMap[voice];
    if (mapped) return mapped;
    const known = this.voices.join(", ") || "none";
    throw new SpeechEngineError(
      "UNSUPPORTED_VOICE",
      `voice "${voice}" is not available on speech server ${this.server} (voices mapped: ${known})`,
      false,
    );
  }

  private checkFormat(format: AudioFormat): void {
    if (this.formats.includes(format)) return;
    const offered = this.formats.join(", ") || "none";
    throw new SpeechEngineError(
      "UNSUPPORTED_FORMAT",
      `format "${format}" is not available from speech server ${this.server} (it offers: ${offered})`,
      false,
    );
  }

  private async fetchAudio(params: SpeechCreateParams, signal: AbortSignal): Promise<Buffer> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const combined = AbortSignal.any([signal, timeout, this.closing.signal]);
    try {
      const response = await this.client.audio.speech.create(params, { signal: combined });
      return Buffer.from(await response.arrayBuffer());
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (this.closing.signal.aborted) throw this.closing.signal.reason;
      throw speechServerError(error, this.server, timeout.aborted ? this.timeoutMs : undefined, this.options.apiKey);
    }
  }

  /** A server that ignores response_format would otherwise have its audio sent under the wrong content type. */
  private checkContainer(bytes: Buffer, format: AudioFormat): void {
    const matches =
      format === "pcm"
        ? bytes.length > 0 && bytes.length % 2 === 0 && !hasContainerSignature(bytes)
        : sniffAudioFormat(bytes) === format;
    if (matches) return;
    const message = `speech server ${this.server} returned ${describeAudioBytes(bytes)} when ${format} was asked for`;
    throw new SpeechEngineError(
      "SYNTHESIS_FAILED",
      `${message}; if it cannot produce ${format}, leave ${format} out of its format list`,
      false,
    );
  }

  private describe(bytes: Buffer, format: AudioFormat): SynthesizedAudio {
    let sampleRate: number | null = null;
    let durationSeconds: number | null = null;
    if (format === "pcm") {
      sampleRate = this.pcmSampleRate;
      durationSeconds = bytes.length / 2 / sampleRate;
    } else if (format === "wav") {
      try {
        const pcm = decodeWav(bytes);
        sampleRate = pcm.sampleRate;
        durationSeconds = pcm.samples.length / pcm.sampleRate;
      } catch {
        // Stereo, 24-bit or float WAV: still valid audio, only its details stay unknown.
      }
    }
    return {
      bytes,
      format,
      contentType: contentTypeFor(format, this.pcmSampleRate),
      sampleRate,
      durationSeconds,
      engine: this.name,
    };
  }
}
