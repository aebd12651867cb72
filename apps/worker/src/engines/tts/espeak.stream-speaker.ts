import type { MessagePort } from "node:worker_threads";
import { createStreamEncoder, joinWithFades, timeStretch, type StreamEncoder } from "@chorus/audio";
import { synthesizeWithEspeak } from "./espeak.synthesizer.js";
import type { EspeakJob, EspeakJobResult, EspeakPiece } from "./espeak.thread-protocol.js";

// Runs inside a speech thread, like espeak.thread.ts, for speech sent as it is made.

/** The bytes in an ArrayBuffer of their own, which can be moved to the other thread. */
function movable(parts: Uint8Array[]): ArrayBuffer {
  // A copy of exactly these bytes (a Buffer may be a view into a shared pool)
  return new Uint8Array(Buffer.concat(parts)).buffer;
}

function post(port: MessagePort, parts: Uint8Array[], sampleRate: number): void {
  const bytes = movable(parts);
  if (bytes.byteLength > 0) port.postMessage({ bytes, sampleRate } satisfies EspeakPiece, [bytes]);
}

/**
 * Speaks, encodes and posts one chunk after another: each chunk fades in and out (as the whole-file
 * path joins them) and is time-stretched on its own. The format's header goes out with the first
 * chunk's audio, so the first piece is a playable start and a failure before it still gets a
 * proper error answer. Posts `null` after the last piece; on failure, throws (nothing more is posted).
 */
export async function speakInPieces(job: EspeakJob & { pieces: MessagePort }): Promise<EspeakJobResult> {
  let encoder: StreamEncoder | undefined;
  let headerSent = false;
  const postWithHeader = (bytes: Uint8Array, coder: StreamEncoder): void => {
    post(job.pieces, headerSent ? [bytes] : [coder.header, bytes], sampleRate);
    headerSent = true;
  };
  let samples = 0;
  let sampleRate = 22050;
  try {
    for (const chunk of job.chunks) {
      const pcm = await synthesizeWithEspeak(chunk, job.settings);
      sampleRate = pcm.sampleRate;
      encoder ??= await createStreamEncoder(job.format, sampleRate);
      const faded = joinWithFades([pcm.samples], sampleRate);
      const piece = job.settings.tempo > 1 ? timeStretch(faded, sampleRate, job.settings.tempo) : faded;
      samples += piece.length;
      postWithHeader(await encoder.push(piece), encoder);
    }
    encoder ??= await createStreamEncoder(job.format, sampleRate);
    postWithHeader(await encoder.finish(), encoder);
    job.pieces.postMessage(null);
    return { bytes: new ArrayBuffer(0), sampleRate, durationSeconds: samples / sampleRate };
  } finally {
    encoder?.dispose();
    job.pieces.close();
  }
}
