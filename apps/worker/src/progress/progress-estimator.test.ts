import { describe, expect, it } from "@jest/globals";
import { ProgressEstimator } from "./progress-estimator.js";

/** mulberry32: a tiny seeded PRNG, so a failing random sequence can be replayed from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("ProgressEstimator", () => {
  it("when any random sequence of calls is made, then progress stays in [0, 0.99] and never decreases", () => {
    for (let seed = 1; seed <= 300; seed++) {
      const random = prng(seed);
      const maxTokens = 1 + Math.floor(random() * 2048);
      const expected = Math.floor(random() * 2 * maxTokens);
      const estimator = new ProgressEstimator(expected, maxTokens, 1_000, 1 + random() * 50);
      let previous = 0;
      let now = 1_000;
      let tokens = 0;
      for (let call = 0; call < 60; call++) {
        now += Math.floor(random() * 500);
        // Mostly growing streams, sometimes jumps past the cap, sometimes (bogus) smaller counts.
        const roll = random();
        tokens =
          roll < 0.1
            ? Math.floor(random() * tokens)
            : roll < 0.2
              ? maxTokens + Math.floor(random() * 10)
              : tokens + Math.floor(random() * 40);
        const { progress, etaSeconds } = estimator.estimate(tokens, now);
        const context = `seed ${seed}, call ${call}, tokens ${tokens}`;
        expect([context, progress >= 0 && progress <= 0.99]).toEqual([context, true]);
        expect([context, progress >= previous]).toEqual([context, true]);
        expect([context, Number.isFinite(etaSeconds) && etaSeconds >= 0]).toEqual([context, true]);
        previous = progress;
      }
    }
  });

  it("when a stream runs token by token up to max_tokens, then progress climbs to the 0.99 cap and no further", () => {
    const estimator = new ProgressEstimator(40, 100, 0, 10);
    const seen: number[] = [];
    for (let tokens = 0; tokens <= 100; tokens++) seen.push(estimator.estimate(tokens, tokens * 100).progress);
    expect(seen[0]).toBe(0);
    expect(seen[20]).toBe(0.5);
    expect(seen[100]).toBe(0.99);
    expect(estimator.estimate(150, 20_000).progress).toBe(0.99);
    expect(Math.max(...seen)).toBe(0.99);
  });

  it("when tokens are below the expected length, then progress is tokens / expected", () => {
    const estimator = new ProgressEstimator(200, 400, 0, 10);
    expect(estimator.estimate(50, 1_000).progress).toBe(0.25);
    expect(estimator.estimate(150, 2_000).progress).toBe(0.75);
  });

  it("when the reply nears its expected length, then progress slows, reaching 0.9 at it and leaving room for a longer reply", () => {
    const estimator = new ProgressEstimator(100, 1000, 0, 10);
    expect(estimator.estimate(80, 8_000).progress).toBeCloseTo(0.8, 10);
    expect(estimator.estimate(90, 9_000).progress).toBeCloseTo(0.85, 10);
    expect(estimator.estimate(100, 10_000).progress).toBeCloseTo(0.9, 10);
  });

  it("when the reply runs past its expected length, then progress keeps rising slowly to 0.99 at max_tokens and the ETA is the time to max_tokens", () => {
    // Expected 150 of max_tokens 2048, streaming 60 tokens/s: the reply of the issue that sat at 0.99 with an ETA of
    // 0-3 s.
    const estimator = new ProgressEstimator(150, 2048, 0, 10);
    let previous = 0;
    for (let tokens = 150; tokens < 2048; tokens += 50) {
      const { progress, etaSeconds } = estimator.estimate(tokens, (tokens / 60) * 1000);
      expect([tokens, progress > previous || tokens === 150, progress < 0.99]).toEqual([tokens, true, true]);
      expect(etaSeconds).toBeCloseTo((2048 - tokens) / 60, 6);
      previous = progress;
    }
    // Half-way from the expected length to max_tokens, progress is half-way from 0.9 to 0.99.
    expect(new ProgressEstimator(150, 2048, 0, 10).estimate(1099, 1_000).progress).toBeCloseTo(0.945, 10);
    expect(estimator.estimate(2048, (2048 / 60) * 1000)).toEqual({ progress: 0.99, etaSeconds: 0 });
  });

  it("when the reply outgrows the estimate near max_tokens, then the ETA counts only the tokens max_tokens leaves", () => {
    const estimator = new ProgressEstimator(10, 12, 0, 10);
    // Past the expected 10 tokens, at most 12 - 10 = 2 are left: 0.2 s at 10 t/s.
    const atTen = estimator.estimate(10, 1_000);
    expect(atTen.etaSeconds).toBeCloseTo(0.2, 10);
    expect(atTen.progress).toBeCloseTo(0.9, 10);
    const atCap = estimator.estimate(12, 1_200);
    expect(atCap).toEqual({ progress: 0.99, etaSeconds: 0 });
  });

  it("when the expected length exceeds max_tokens, then max_tokens is used from the start", () => {
    const estimator = new ProgressEstimator(500, 100, 0, 10);
    expect(estimator.estimate(50, 1_000)).toEqual({ progress: 0.5, etaSeconds: 1 });
  });

  it("when tokens have streamed, then the ETA is remaining tokens over this job's measured rate", () => {
    const estimator = new ProgressEstimator(100, 200, 1_000, 999);
    // 20 tokens in 2 s = 10 t/s; 80 remaining -> 8 s. The fallback rate is ignored.
    expect(estimator.estimate(20, 3_000)).toEqual({ progress: 0.2, etaSeconds: 8 });
    // 60 tokens in 4 s = 15 t/s; 40 remaining -> 8/3 s.
    const later = estimator.estimate(60, 5_000);
    expect(later.progress).toBe(0.6);
    expect(later.etaSeconds).toBeCloseTo(40 / 15, 10);
  });

  it("when no token has arrived yet, then the ETA uses the fallback rate", () => {
    const estimator = new ProgressEstimator(100, 200, 0, 25);
    expect(estimator.estimate(0, 0)).toEqual({ progress: 0, etaSeconds: 4 });
    expect(estimator.estimate(0, 60_000)).toEqual({ progress: 0, etaSeconds: 4 });
  });
});
