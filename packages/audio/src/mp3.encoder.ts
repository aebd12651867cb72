import { createMp3Encoder, type WasmMediaEncoder } from "wasm-media-encoders";
import { toFloat32, type PcmAudio } from "./pcm-audio.js";
import type { StreamEncoder } from "./stream-encoder.js";

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

/**
 * MP3 a piece at a time: LAME's frames as each push completes them, the rest at finish. MP3 is a
 * run of self-contained frames (LAME writes no Xing header here), so the pieces join as they are.
 */
export async function createMp3Stream(sampleRate: number): Promise<StreamEncoder> {
  encoder ??= createMp3Encoder();
  const lame = await encoder;
  lame.configure({ sampleRate, channels: 1, vbrQuality: VBR_QUALITY });
  return {
    header: new Uint8Array(0),
    push: (samples) => Promise.resolve(lame.encode([toFloat32(samples)]).slice()),
    finish: () => Promise.resolve(lame.finalize().slice()),
    dispose: () => undefined,
  };
}
