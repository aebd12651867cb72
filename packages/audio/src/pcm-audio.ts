/** Mono 16-bit signed PCM: what engines produce and every encoder consumes. */
export interface PcmAudio {
  samples: Int16Array;
  /** Samples per second. */
  sampleRate: number;
}

/** -1..1 floats, the input of the WASM encoders and the resampler. */
export function toFloat32(samples: Int16Array): Float32Array {
  const out = new Float32Array(samples.length);
  for (let i = 0; i < samples.length; i += 1) out[i] = (samples[i] as number) / 32768;
  return out;
}

/** Back to 16-bit, clamping: a resampler's overshoot past ±1 must saturate, not wrap around. */
export function toInt16(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i += 1) {
    const value = Math.round((samples[i] as number) * 32768);
    out[i] = value > 32767 ? 32767 : value < -32768 ? -32768 : value;
  }
  return out;
}

/** The samples as little-endian bytes (the `pcm` format), whatever the platform's byte order. */
export function int16ToLittleEndianBytes(samples: Int16Array): Uint8Array {
  const bytes = new Uint8Array(samples.length * 2);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < samples.length; i += 1) view.setInt16(i * 2, samples[i] as number, true);
  return bytes;
}
