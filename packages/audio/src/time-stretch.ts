/**
 * Changes tempo without changing pitch, by WSOLA (waveform-similarity overlap-add): 30 ms Hann
 * windows are laid down every 15 ms of output, each taken from where the input has advanced by
 * 15 ms × factor, shifted by up to ±5 ms to the spot most similar to the natural continuation of
 * the previous window, so periods line up and no phase jumps are heard. Used only beyond what
 * eSpeak NG can do itself (450 words per minute); no maintained npm package offers this for Node.
 */
export function timeStretch(samples: Int16Array, sampleRate: number, factor: number): Int16Array {
  if (!(factor > 0)) throw new RangeError(`the tempo factor must be positive, not ${factor}`);
  if (factor === 1 || samples.length === 0) return samples.slice();
  const frame = 2 * Math.round(sampleRate * 0.015);
  const hop = frame / 2;
  const tolerance = Math.round(sampleRate * 0.005);
  const window = Float32Array.from({ length: frame }, (_, n) => 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / frame));
  const outLength = Math.round(samples.length / factor);
  const out = new Float32Array(outLength + frame);
  let previous = 0;
  for (let k = 0; k * hop < outLength; k += 1) {
    const ideal = Math.round(k * hop * factor);
    const position = k === 0 ? 0 : mostSimilar(samples, previous + hop, ideal, tolerance, hop);
    const start = k * hop;
    for (let n = 0; n < frame; n += 1)
      out[start + n] = (out[start + n] as number) + (samples[position + n] ?? 0) * (window[n] as number);
    previous = position;
  }
  return Int16Array.from(out.subarray(0, outLength), (value) => Math.max(-32768, Math.min(32767, Math.round(value))));
}

/** The start within ideal ± tolerance whose next `length` samples best match those at `natural`. */
function mostSimilar(samples: Int16Array, natural: number, ideal: number, tolerance: number, length: number): number {
  let best = ideal;
  let bestScore = -Infinity;
  const first = Math.max(0, ideal - tolerance);
  const last = Math.min(samples.length - 1, ideal + tolerance);
  for (let candidate = first; candidate <= last; candidate += 1) {
    let correlation = 0;
    let energy = 1e-9;
    for (let i = 0; i < length; i += 1) {
      const value = samples[candidate + i] ?? 0;
      correlation += value * (samples[natural + i] ?? 0);
      energy += value * value;
    }
    const score = correlation / Math.sqrt(energy);
    if (score > bestScore) {
      bestScore = score;
      best = candidate;
    }
  }
  return best;
}
