import { describe, expect, it } from "@jest/globals";
import { queuedEtaSeconds } from "./status-store.js";

/** A small seeded generator, so the simulation gives the same figures on every run. */
function uniforms(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/**
 * The mean time to completion of a job with `ahead` jobs ahead of it while `slots` jobs run, each
 * with a uniformly random part of a job time left; every later job takes exactly one job time.
 */
function simulatedEta(ahead: number, averageSeconds: number, slots: number, trials = 20_000): number {
  const next = uniforms(ahead * 100 + slots);
  let total = 0;
  for (let trial = 0; trial < trials; trial++) {
    const freeAt = Array.from({ length: slots }, () => next() * averageSeconds);
    for (let job = 0; job <= ahead; job++) {
      const soonest = Math.min(...freeAt);
      freeAt[freeAt.indexOf(soonest)] = soonest + averageSeconds;
      if (job === ahead) total += soonest + averageSeconds;
    }
  }
  return total / trials;
}

describe("the ETA of a queued job", () => {
  it.each([
    [0, 1],
    [3, 1],
    [0, 2],
    [1, 2],
    [5, 2],
    [0, 4],
    [3, 4],
    [20, 4],
  ])(
    "when %i jobs are ahead and %i slots are busy, then it is within 10 %% of the simulated mean time to completion",
    (ahead, slots) => {
      const eta = queuedEtaSeconds(ahead, 2, slots);
      expect(Math.abs(eta - simulatedEta(ahead, 2, slots)) / simulatedEta(ahead, 2, slots)).toBeLessThan(0.1);
    },
  );

  it("when the job is next for a busy slot, then it is more than one job time: the running job must finish first", () => {
    expect(queuedEtaSeconds(0, 2, 1)).toBe(3);
  });
});
