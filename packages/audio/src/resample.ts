import libsamplerate from "@alexanderolsen/libsamplerate-js";
import { toFloat32, toInt16, type PcmAudio } from "./pcm-audio.js";

// libsamplerate's "fastest" sinc converter: 97 dB SNR, 80 % bandwidth. That keeps everything
// eSpeak produces below 8.8 kHz at 24 kHz output, at a third of the medium converter's cost.
const CONVERTER = libsamplerate.ConverterType.SRC_SINC_FASTEST;

/** Band-limited sample-rate conversion (libsamplerate, WASM). */
export async function resample(audio: PcmAudio, targetRate: number): Promise<PcmAudio> {
  if (audio.sampleRate === targetRate) return audio;
  const converter = await libsamplerate.create(1, audio.sampleRate, targetRate, { converterType: CONVERTER });
  try {
    return { samples: toInt16(converter.simple(toFloat32(audio.samples))), sampleRate: targetRate };
  } finally {
    converter.destroy();
  }
}
