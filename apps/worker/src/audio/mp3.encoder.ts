import { createMp3Encoder, type WasmMediaEncoder } from "wasm-media-encoders";
import { toFloat32, type PcmAudio } from "./pcm-audio.js";

/** LAME VBR quality (0 best .. 9.999 worst): 4 is LAME's default, transparent for speech. */
const VBR_QUALITY = 4;

// One LAME instance per thread, created on first use: configure() resets it, and each encoding
// runs start to finish without awaiting, so calls never interleave on it.
let encoder: Promise<WasmMediaEncoder<"audio/mpeg">> | undefined;

/** MP3 (LAME via wasm-media-encoders) at the input's sample rate. */
export async function encodeMp3(audio: PcmAudio): Promise<Uint8Array> {
  encoder ??= createMp3Encoder();
  const lame = await encoder;
  lame.configure({ sampleRate: audio.sampleRate, channels: 1, vbrQuality: VBR_QUALITY });
  // encode() and finalize() return views into WASM memory that the next call overwrites: copy each.
  const body = lame.encode([toFloat32(audio.samples)]).slice();
  const tail = lame.finalize();
  const out = new Uint8Array(body.length + tail.length);
  out.set(body);
  out.set(tail, body.length);
  return out;
}
