import { SPEECH_REQUEST_REJECTED, type SpeechJobResult, type SynthesizeSpeechJob } from "@chorus/contracts";
import { SpeechAudioStore, type ApiKeyUsage, type Logger, type RedisKeys, type RedisClient } from "@chorus/platform";
import { UnrecoverableError, type Job } from "bullmq";
import { SpeechEngineError, type SpeechEngine } from "../engines/tts/speech-engine.js";

export interface SynthesizeSpeechDeps {
  speech: SpeechEngine;
  connection: RedisClient;
  keys: RedisKeys;
  logger: Logger;
  /** How long audio may wait in Redis for its gateway (a backstop: the gateway deletes it once delivered). */
  audioTtlSeconds: number;
  /** Per-key usage: seconds of speech synthesized. */
  usage: ApiKeyUsage;
}

/** A failure the request caused says so, for the gateway to answer 400 instead of 500. */
function asJobFailure(error: unknown): unknown {
  if (!(error instanceof SpeechEngineError)) return error;
  if (error.code === "UNSUPPORTED_VOICE") return new UnrecoverableError(`${SPEECH_REQUEST_REJECTED} voice: ${error.message}`);
  if (error.code === "UNSUPPORTED_FORMAT") return new UnrecoverableError(`${SPEECH_REQUEST_REJECTED} format: ${error.message}`);
  return error.retryable ? error : new UnrecoverableError(error.message);
}

/** Synthesizes and encodes off the event loop (the engine's threads), then parks the bytes in Redis, piece by piece. */
export function synthesizeSpeechProcessor(deps: SynthesizeSpeechDeps) {
  return async (job: Job<SynthesizeSpeechJob>, _token?: string, signal?: AbortSignal): Promise<SpeechJobResult> => {
    const { requestId, request } = job.data;
    if (!requestId || typeof request?.text !== "string") throw new UnrecoverableError("malformed job payload");
    const started = Date.now();
    try {
      const audio = await deps.speech.synthesize(request, signal ?? new AbortController().signal);
      const meta: SpeechJobResult = { format: audio.format, contentType: audio.contentType, byteLength: audio.bytes.length, sampleRate: audio.sampleRate, durationSeconds: audio.durationSeconds };
      await new SpeechAudioStore(deps.connection, deps.keys).write(requestId, audio.bytes, meta, deps.audioTtlSeconds);
      // Counted before the job completes, so usage read after the answer includes it; never fails the job.
      await deps.usage.countSpeech(job.data.keyId, audio.durationSeconds ?? 0).catch((e: unknown) => deps.logger.warn("could not count usage", { jobId: requestId, error: String(e) }));
      deps.logger.info("speech synthesized", { jobId: requestId, keyId: job.data.keyId, engine: audio.engine, format: audio.format, bytes: audio.bytes.length, ms: Date.now() - started });
      return meta;
    } catch (error) {
      throw asJobFailure(error);
    }
  };
}
