import { SPEECH_REQUEST_REJECTED, type SpeechJobResult, type SynthesizeSpeechJob } from "@chorus/contracts";
import type { UsageBudgetLedger } from "@chorus/platform/budgets";
import { type Logger } from "@chorus/platform/logger";
import { type RedisKeys, type RedisClient } from "@chorus/platform/redis";
import { SpeechAudioStore, SpeechAudioStreamWriter } from "@chorus/platform/speech-audio";
import type { FinishedJob, UsageMeter } from "@chorus/platform/usage";
import { UnrecoverableError, type Job } from "bullmq";
import {
  SpeechEngineError,
  type AudioPieceInfo,
  type SpeechEngine,
  type SynthesizedAudio,
} from "../engines/tts/speech-engine.js";
import { settleJobBudget } from "../records/settle-budget.js";

export interface SynthesizeSpeechDeps {
  speech: SpeechEngine;
  connection: RedisClient;
  keys: RedisKeys;
  logger: Logger;
  /** How long audio may wait in Redis for its gateway (a backstop: the gateway deletes it once delivered). */
  audioTtlSeconds: number;
  /** Meters each finished speech job (completed, or failed for good) into its key's usage, once per job id. */
  meter: UsageMeter;
  /** Per-key usage budgets: the job's hold is settled with the seconds made. */
  budgets: UsageBudgetLedger;
}

/**
 * A speech job's end, for its key's usage (`audio`: the audio made; null: failed for good), under
 * the speech engine's name, as a text job's is under its model.
 */
function finishedSpeech(job: Job<SynthesizeSpeechJob>, engine: string, audio: SynthesizedAudio | null): FinishedJob {
  const { requestId: jobId, keyId, request } = job.data;
  if (!audio) return { jobId, keyId, model: engine, end: "error" };
  const audioSeconds = audio.durationSeconds ?? 0;
  return { jobId, keyId, model: engine, end: "completed", characters: [...request.text].length, audioSeconds };
}

/**
 * A failure the request caused says so, for the gateway to answer 400 instead of 500. Once audio
 * has been published nothing is retried: the client is already playing this run's bytes.
 */
function asJobFailure(error: unknown, published: boolean): unknown {
  if (error instanceof SpeechEngineError) {
    if (error.code === "UNSUPPORTED_VOICE")
      return new UnrecoverableError(`${SPEECH_REQUEST_REJECTED} voice: ${error.message}`);
    if (error.code === "UNSUPPORTED_FORMAT")
      return new UnrecoverableError(`${SPEECH_REQUEST_REJECTED} format: ${error.message}`);
    if (!error.retryable) return new UnrecoverableError(error.message);
  }
  if (!published) return error;
  return new UnrecoverableError(
    `failed after the first audio was sent: ${error instanceof Error ? error.message : String(error)}`,
  );
}

/** Whether BullMQ will give up on the job with this failure (so its stream must say so). */
function isLastAttempt(job: Job, failure: unknown): boolean {
  return failure instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}

function metaOf(audio: SynthesizedAudio): SpeechJobResult {
  return {
    format: audio.format,
    contentType: audio.contentType,
    byteLength: audio.bytes.length,
    sampleRate: audio.sampleRate,
    durationSeconds: audio.durationSeconds,
  };
}

/**
 * Synthesizes and encodes off the event loop (the engine's threads). Whole: parks the bytes in
 * Redis, piece by piece. Streamed (`job.data.stream`): publishes each piece as it is made (see
 * SpeechAudioStreamWriter), then the end; a final failure is published too, for the gateway reading.
 */
export function synthesizeSpeechProcessor(deps: SynthesizeSpeechDeps) {
  return async (job: Job<SynthesizeSpeechJob>, _token?: string, signal?: AbortSignal): Promise<SpeechJobResult> => {
    const { requestId, request } = job.data;
    if (!requestId || typeof request?.text !== "string") throw new UnrecoverableError("malformed job payload");
    const started = Date.now();
    const stream =
      job.data.stream === true
        ? new SpeechAudioStreamWriter(deps.connection, deps.keys, requestId, deps.audioTtlSeconds)
        : null;
    let published = false;
    const publish = stream
      ? async (piece: Buffer, info: AudioPieceInfo) => {
          await stream.piece(piece, info);
          published = true;
        }
      : undefined;
    try {
      const audio = await deps.speech.synthesize(request, signal ?? new AbortController().signal, publish);
      const meta = metaOf(audio);
      if (!stream)
        await new SpeechAudioStore(deps.connection, deps.keys).write(
          requestId,
          audio.bytes,
          meta,
          deps.audioTtlSeconds,
        );
      // Counted before the answer can end (the job completes, the stream's end), so usage read after it includes it;
      // never fails the job.
      await deps.meter.record(finishedSpeech(job, deps.speech.name, audio));
      const use = { tokens: 0, audioMs: Math.round((audio.durationSeconds ?? 0) * 1000) };
      await settleJobBudget(deps.budgets, job.data, use, deps.logger);
      if (stream) await stream.end(meta);
      deps.logger.info("speech synthesized", {
        jobId: requestId,
        keyId: job.data.keyId,
        engine: audio.engine,
        format: audio.format,
        bytes: audio.bytes.length,
        streamed: stream !== null,
        ms: Date.now() - started,
      });
      return meta;
    } catch (error) {
      const failure = asJobFailure(error, published);
      if (isLastAttempt(job, failure)) await deps.meter.record(finishedSpeech(job, deps.speech.name, null));
      if (stream && isLastAttempt(job, failure)) {
        const reason = failure instanceof Error ? failure.message : String(failure);
        await stream
          .fail(reason)
          .catch((e: unknown) =>
            deps.logger.warn("could not publish a speech failure", { jobId: requestId, error: String(e) }),
          );
      }
      throw failure;
    }
  };
}
