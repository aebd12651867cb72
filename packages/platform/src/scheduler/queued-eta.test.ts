import { describe, expect, it } from "@jest/globals";
import { Rng } from "../../../../test-support/rng.js";
import { queuedEtaSeconds } from "./stored-status.js";

/**
 * The mean time to completion of a job with `ahead` jobs ahead of it while `slots` jobs run, each
 * with a uniformly random part of a job time left; every later job takes exactly one job time.
 */
function simulatedEta(ahead: number, averageSeconds: number, slots: number, trials = 20_000): number {
  const random = new Rng(ahead * 100 + slots);
  let total = 0;
  for (let trial = 0; trial < trials; trial++) {
    const freeAt = Array.from({ length: slots }, () => random.next() * averageSeconds);
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
    [0, 3],
    [4, 3],
    [0, 4],
    [3, 4],
    [20, 4],
  ])(
    "when %i jobs are ahead and %i slots are busy, then it is the simulated mean time to completion (within 2 %%)",
    (ahead, slots) => {
      const simulated = simulatedEta(ahead, 10, slots);
      expect(Math.abs((queuedEtaSeconds(ahead, 10, slots) as number) - simulated) / simulated).toBeLessThan(0.02);
    },
  );

  it("when the job is next for a busy slot, then it is more than one job time: the running job must finish first", () => {
    expect(queuedEtaSeconds(0, 2, 1)).toBe(3);
  });

  it("when no job time is measured or no worker is live, then there is no ETA", () => {
    expect(queuedEtaSeconds(0, 0, 2)).toBeUndefined();
    expect(queuedEtaSeconds(3, 2, 0)).toBeUndefined();
  });
});
