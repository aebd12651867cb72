import { once } from "node:events";
import { finished } from "node:stream/promises";
import { ApiError, type SpeechJobResult } from "@chorus/contracts";
import type { Logger } from "@chorus/platform/logger";
import type { AudioStreamEntry } from "@chorus/platform/speech-audio";
import type { Response } from "express";
import type { SpeechJobs, SpeechJob } from "../services/speech-jobs.service.js";
import { markCutShort } from "../middleware/request-context.js";
import { sendAudio } from "./send-audio.js";

/**
 * How a streamed answer ended: whole; the client left; or the synthesis failed after the first byte (the response was
 * cut).
 */
export type StreamOutcome = "delivered" | "client-gone" | "broken";

/** A failure after the headers went out: the response can only be cut short. */
class BrokenStream extends Error {}

const CLIENT_GONE = new Error("the client closed the connection");

/** The headers of a streamed answer: no Content-Length (chunked); the duration follows as a trailer. */
function startResponse(res: Response, contentType: string, sampleRate: number | null): void {
  res.status(200);
  res.setHeader("Content-Type", contentType);
  if (sampleRate !== null) res.setHeader("X-Sample-Rate", String(sampleRate));
  res.setHeader("Trailer", "X-Audio-Duration");
  res.setHeader("X-Accel-Buffering", "no"); // nginx: pass each piece on at once
  res.flushHeaders();
}

async function write(res: Response, bytes: Buffer, signal: AbortSignal): Promise<void> {
  if (!res.write(bytes)) await once(res, "drain", { signal });
}

async function end(res: Response, meta: SpeechJobResult): Promise<void> {
  if (meta.durationSeconds !== null) res.addTrailers({ "X-Audio-Duration": meta.durationSeconds.toFixed(3) });
  res.end();
  await finished(res);
}

/**
 * Sends one streamed job's entries as they arrive (see SpeechAudioStreamWriter). Before the first
 * byte a failure is thrown (the error middleware answers it as usual); after it, nothing but cutting
 * the response is left: chunked encoding ends without its last chunk, which every HTTP client
 * reports as an error (docs/speech.md). A new run (the job taken over by another worker) after the
 * first byte breaks the stream the same way: its bytes start the file again.
 */
async function relay(
  res: Response,
  jobs: SpeechJobs,
  job: SpeechJob,
  entries: AsyncIterable<AudioStreamEntry[]>,
  stopped: AbortSignal,
  completed: () => SpeechJobResult | null,
): Promise<"delivered" | "no-stream"> {
  let run: string | null = null;
  for await (const batch of entries) {
    if (batch.length === 0 && run === null && completed()) return "no-stream"; // a worker that does not stream
    for (const entry of batch) {
      if (run !== null && entry.run !== run)
        throw new BrokenStream("the synthesis restarted on another worker after the first bytes were sent");
      if (entry.kind === "failed")
        throw run === null ? await jobs.failure(job.requestId, entry.reason) : new BrokenStream(entry.reason);
      if (run === null)
        startResponse(
          res,
          entry.kind === "piece" ? entry.contentType : entry.meta.contentType,
          entry.kind === "piece" ? entry.sampleRate : entry.meta.sampleRate,
        );
      run = entry.run;
      if (entry.kind === "piece") await write(res, entry.bytes, stopped);
      if (entry.kind === "end") {
        await end(res, entry.meta);
        return "delivered";
      }
    }
  }
  throw new BrokenStream("the audio stream ended without its last entry");
}

export interface StreamOptions {
  /** Keep the audio once delivered (an Idempotency-Key may replay it); else it is deleted. */
  keep: boolean;
  logger: Logger;
  /** Runs before a broken response is cut (the client sees the cut only after it): free an Idempotency-Key, say. */
  beforeCut?: () => Promise<void>;
}

/**
 * Sends a streamed job's audio to the client as the worker publishes it. The reader stops (and its
 * connection closes) when the answer ends, the client leaves, or the job fails or times out. The
 * audio and its stream are deleted once delivered, unless `keep`.
 */
export async function sendStreamedSpeech(
  res: Response,
  jobs: SpeechJobs,
  job: SpeechJob,
  { keep, logger, beforeCut }: StreamOptions,
): Promise<StreamOutcome> {
  const stop = new AbortController();
  const state: { completed: SpeechJobResult | null } = { completed: null };
  job.finished.then(
    (meta) => void (state.completed = meta),
    (error: unknown) => stop.abort(error),
  );
  const onClose = () => void (res.writableFinished || stop.abort(CLIENT_GONE));
  res.on("close", onClose);
  try {
    const how = await relay(
      res,
      jobs,
      job,
      jobs.readers.entries(job.requestId, stop.signal),
      stop.signal,
      () => state.completed,
    );
    if (how === "no-stream" && state.completed)
      return (await sendAudio(res, jobs.audio, { requestId: job.requestId, meta: state.completed }, keep, logger))
        ? "delivered"
        : "client-gone";
    if (!keep)
      await jobs.audio
        .delete(job.requestId)
        .catch((error: unknown) => logger.warn("could not delete delivered audio", { error: String(error) }));
    return "delivered";
  } catch (error) {
    const reason: unknown = stop.signal.aborted ? stop.signal.reason : error;
    if (reason === CLIENT_GONE) return "client-gone";
    if (!res.headersSent)
      throw reason instanceof ApiError
        ? reason
        : new ApiError("INTERNAL_ERROR", `speech synthesis failed: ${String(reason).slice(0, 300)}`);
    logger.warn("speech stream cut short: the synthesis failed after the first bytes", {
      requestId: job.requestId,
      error: reason instanceof Error ? reason.message : String(reason),
    });
    await beforeCut?.().catch(() => undefined);
    markCutShort(res);
    res.destroy();
    return "broken";
  } finally {
    stop.abort(CLIENT_GONE); // ends the reader, if it still reads
    res.off("close", onClose);
  }
}
