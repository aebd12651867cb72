import type { AudioFormat } from "@chorus/contracts";
import { createFlacStream } from "./flac.encoder.js";
import { createMp3Stream } from "./mp3.encoder.js";
import { createOggOpusStream } from "./ogg-opus.stream-encoder.js";
import { int16ToLittleEndianBytes } from "./pcm-audio.js";
import type { StreamEncoder } from "./stream-encoder.js";
import { streamingWavHeader } from "./wav.codec.js";

/** Headerless formats: every piece is its samples, as they are. */
function rawPcmStream(header: Uint8Array): StreamEncoder {
  return {
    header,
    push: (samples) => Promise.resolve(int16ToLittleEndianBytes(samples)),
    finish: () => Promise.resolve(new Uint8Array(0)),
    dispose: () => undefined,
  };
}

/** Every format streams; see docs/speech.md for what wav and flac leave unknown in their headers. */
export async function createStreamEncoder(format: AudioFormat, sampleRate: number): Promise<StreamEncoder> {
  switch (format) {
    case "pcm":
      return rawPcmStream(new Uint8Array(0));
    case "wav":
      return rawPcmStream(streamingWavHeader(sampleRate));
    case "mp3":
      return createMp3Stream(sampleRate);
    case "flac":
      return createFlacStream(sampleRate);
    case "opus":
      return createOggOpusStream(sampleRate);
  }
}
