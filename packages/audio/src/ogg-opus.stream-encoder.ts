import { randomInt } from "node:crypto";
import {
  encodeFrames,
  endGranuleOf,
  FRAME_SAMPLES,
  framesToCover,
  createOpusEncoder,
  headerPages,
  markLastPage,
  OPUS_ENCODER_RATE,
  packetPages,
} from "./opus.encoder.js";
import { writeOggPage, type OggPage } from "./ogg-page.writer.js";
import { resample } from "./resample.js";
import type { StreamEncoder } from "./stream-encoder.js";

/**
 * Ogg Opus made a piece at a time: the header pages first, then, for each piece, the pages of the
 * whole 20 ms frames it completes (the rest waits for the next piece), and at the end the last
 * frames, padded past the look-ahead, on a page whose granule trims the padding (RFC 7845 §4.4).
 * One libopus encoder runs throughout, so the frames are those of one continuous stream.
 */
export function createOggOpusStream(inputSampleRate: number, serial: number = randomInt(2 ** 32)): StreamEncoder {
  const encoder = createOpusEncoder();
  let sequence = 0;
  let framesDone = 0;
  let samplesIn = 0;
  let pending = new Int16Array(0);
  const write = (pages: OggPage[]): Uint8Array =>
    Buffer.concat(pages.map((page) => writeOggPage(page, serial, sequence++)));
  return {
    header: write(headerPages(inputSampleRate)),
    async push(samples) {
      const pcm = await resample({ samples, sampleRate: inputSampleRate }, OPUS_ENCODER_RATE);
      samplesIn += pcm.samples.length;
      const buffered = new Int16Array(pending.length + pcm.samples.length);
      buffered.set(pending);
      buffered.set(pcm.samples, pending.length);
      const frames = Math.floor(buffered.length / FRAME_SAMPLES);
      pending = buffered.slice(frames * FRAME_SAMPLES);
      const pages = packetPages(encodeFrames(encoder, buffered, frames), framesDone);
      framesDone += frames;
      return write(pages);
    },
    finish() {
      const packets = encodeFrames(encoder, pending, framesToCover(samplesIn) - framesDone);
      return Promise.resolve(write(markLastPage(packetPages(packets, framesDone), endGranuleOf(samplesIn))));
    },
    dispose: () => encoder.delete(),
  };
}
