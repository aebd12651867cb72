import { encodeAudio } from "@chorus/audio";
import {
  decodeFlac,
  inspectFlac,
  inspectWav,
  pcmFromLittleEndian,
  rms,
} from "../../../../../test-support/audio/audio-inspect.js";
import { inspectMp3 } from "../../../../../test-support/audio/mp3-inspect.js";
import { decodeOggOpus, inspectOggOpus } from "../../../../../test-support/audio/ogg-opus-inspect.js";
import type { SynthesizedAudio } from "./speech-engine.js";

/** What a client would find on decoding the bytes, whatever the engine said about them. */
export interface MeasuredAudio {
  sampleRate: number;
  durationSeconds: number;
  /** Not silence: decoded RMS above -36 dBFS, or for MP3 (no decoder here) frames far above those of silence. */
  loud: boolean;
}

/** -36 dBFS: speech sits around -20, silence (and eSpeak's pauses) at 0. */
const LOUD_RMS = 500;

/** What RIFF size fields hold when the size was not known: 2^32 - 1. */
const UNKNOWN_SIZE = 0xffffffff;

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`malformed audio: ${what}`);
}

async function measureMp3(bytes: Uint8Array): Promise<MeasuredAudio> {
  const info = inspectMp3(bytes);
  check(info.layer === 3 && info.frames > 0, "MP3 without Layer III frames");
  const silence = new Int16Array(Math.round(info.durationSeconds * info.sampleRate));
  const quiet = inspectMp3(await encodeAudio({ samples: silence, sampleRate: info.sampleRate }, "mp3"));
  return {
    sampleRate: info.sampleRate,
    durationSeconds: info.durationSeconds,
    loud: info.meanFrameBytes > quiet.meanFrameBytes * 2,
  };
}

/** Decodes or inspects `audio.bytes` according to its format; throws when the container is malformed. */
export async function measureAudio(audio: SynthesizedAudio): Promise<MeasuredAudio> {
  const bytes = new Uint8Array(audio.bytes.buffer, audio.bytes.byteOffset, audio.bytes.byteLength);
  switch (audio.format) {
    case "wav": {
      const wav = inspectWav(bytes);
      check(wav.format === 1 && wav.channels === 1 && wav.bitsPerSample === 16, "WAV that is not 16-bit mono PCM");
      // A WAV written as it was made says both sizes are unknown (the largest value), not wrong ones.
      const streamed = wav.riffSize === UNKNOWN_SIZE && wav.dataBytes === UNKNOWN_SIZE;
      check(
        wav.byteRate === wav.sampleRate * 2 && (streamed || wav.riffSize === bytes.length - 8),
        "inconsistent WAV header",
      );
      return { sampleRate: wav.sampleRate, durationSeconds: wav.durationSeconds, loud: rms(wav.samples) > LOUD_RMS };
    }
    case "pcm": {
      const rate = Number(/;rate=(\d+)$/.exec(audio.contentType)?.[1]);
      check(Number.isInteger(rate) && rate > 0, `pcm content type without a rate: ${audio.contentType}`);
      const samples = pcmFromLittleEndian(bytes);
      return { sampleRate: rate, durationSeconds: samples.length / rate, loud: rms(samples) > LOUD_RMS };
    }
    case "flac": {
      const info = inspectFlac(bytes);
      check(info.channels === 1 && info.bitsPerSample === 16, "FLAC that is not 16-bit mono");
      const samples = await decodeFlac(bytes);
      // 0: a stream written as it was made, whose length STREAMINFO could not know.
      check(
        info.totalSamples === 0 || samples.length === info.totalSamples,
        "FLAC sample count differs from STREAMINFO",
      );
      return {
        sampleRate: info.sampleRate,
        durationSeconds: samples.length / info.sampleRate,
        loud: rms(samples) > LOUD_RMS,
      };
    }
    case "opus": {
      const info = inspectOggOpus(bytes);
      check(
        info.pages.every((page) => page.crcValid),
        "Ogg page with a bad CRC",
      );
      check(
        info.head.version === 1 && info.head.channels === 1 && info.tagsMagic === "OpusTags",
        "bad OpusHead/OpusTags",
      );
      // Opus always decodes at 48 kHz; OpusHead's rate is only the original's, for information.
      return {
        sampleRate: info.head.inputSampleRate,
        durationSeconds: info.durationSeconds,
        loud: rms(decodeOggOpus(info)) > LOUD_RMS,
      };
    }
    case "mp3":
      return measureMp3(bytes);
  }
}
