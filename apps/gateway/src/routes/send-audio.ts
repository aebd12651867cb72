import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { ApiError } from "@chorus/contracts";
import type { Logger } from "@chorus/platform/logger";
import type { SpeechAudioStore } from "@chorus/platform/speech-audio";
import type { Response } from "express";
import type { SynthesizedSpeech } from "../services/speech-jobs.service.js";

/**
 * Streams audio from Redis to the client a piece at a time, reading the next piece only when the
 * client has taken the last (so a slow client holds one piece, not the whole file), on the audio
 * store's own connection. The audio is deleted only once the response has finished, and not at all
 * when `keep` (an Idempotency-Key retry may ask for it again): a delivery that breaks off leaves it
 * for a retry until it expires. Returns whether the whole audio was handed over.
 */
export async function sendAudio(
  res: Response,
  store: SpeechAudioStore,
  { requestId, meta }: SynthesizedSpeech,
  keep: boolean,
  logger: Logger,
): Promise<boolean> {
  const byteLength = await store.byteLength(requestId);
  if (byteLength !== meta.byteLength)
    throw new ApiError("INTERNAL_ERROR", "the synthesized audio was lost before delivery; retry the request");
  res.status(200);
  res.setHeader("Content-Type", meta.contentType);
  res.setHeader("Content-Length", byteLength);
  if (meta.durationSeconds !== null) res.setHeader("X-Audio-Duration", meta.durationSeconds.toFixed(3));
  if (meta.sampleRate !== null) res.setHeader("X-Sample-Rate", String(meta.sampleRate));
  try {
    // A byte stream holding at most one piece: Readable.from's object mode would read 16 ahead.
    await pipeline(Readable.from(store.pieces(requestId, byteLength), { objectMode: false, highWaterMark: 1 }), res);
  } catch (error) {
    // Headers are gone: the client sees a short body. The audio stays for a retry.
    logger.warn("speech delivery broke off", { error: String(error), bytes: byteLength });
    return false;
  }
  if (!keep)
    await store
      .delete(requestId)
      .catch((error: unknown) => logger.warn("could not delete delivered audio", { error: String(error) }));
  return true;
}
