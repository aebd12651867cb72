/** A voiced, speech-like test signal: a 140 Hz tone with harmonics, its loudness swelling 3 times a second. */
export function voicedSignal(seconds: number, sampleRate = 22050, peak = 12000): Int16Array {
  return Int16Array.from({ length: Math.round(seconds * sampleRate) }, (_, i) => {
    const t = i / sampleRate;
    const envelope = 0.55 + 0.45 * Math.sin(2 * Math.PI * 3 * t);
    const tone = [1, 2, 3, 5].reduce((sum, h) => sum + Math.sin(2 * Math.PI * 140 * h * t) / h, 0) / 1.9;
    return Math.round(peak * envelope * tone);
  });
}

export function sineWave(seconds: number, frequency: number, sampleRate = 22050, peak = 10000): Int16Array {
  return Int16Array.from({ length: Math.round(seconds * sampleRate) }, (_, i) =>
    Math.round(peak * Math.sin((2 * Math.PI * frequency * i) / sampleRate)),
  );
}

/** Sign changes per second: the fundamental's frequency, twice over, for a pure tone. */
export function zeroCrossingsPerSecond(samples: Int16Array, sampleRate: number): number {
  let crossings = 0;
  for (let i = 1; i < samples.length; i += 1) if (samples[i - 1]! < 0 !== samples[i]! < 0) crossings += 1;
  return crossings / (samples.length / sampleRate);
}
