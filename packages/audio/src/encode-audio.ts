import type { AudioFormat } from "@chorus/contracts";
import { encodeFlac } from "./flac.encoder.js";
import { encodeMp3 } from "./mp3.encoder.js";
import { encodeOggOpus } from "./opus.encoder.js";
import { int16ToLittleEndianBytes, type PcmAudio } from "./pcm-audio.js";
import { encodeWav } from "./wav.codec.js";

/** Encodes mono 16-bit PCM into `format`. CPU-bound for seconds on long texts: call it off the main thread. */
export async function encodeAudio(audio: PcmAudio, format: AudioFormat): Promise<Uint8Array> {
  switch (format) {
    case "wav":
      return encodeWav(audio);
    case "pcm":
      return int16ToLittleEndianBytes(audio.samples);
    case "mp3":
      return encodeMp3(audio);
    case "flac":
      return encodeFlac(audio);
    case "opus":
      return encodeOggOpus(audio);
  }
}
