import { jobTimeMs, quietWait, quietWaitFigure, quietWaitNote, type NoisyRound } from "./quiet-wait.js";

const job = (startedAt: number, ms = 40) => ({ startedAt, finishedAt: startedAt + ms });

/** Two slots, 40 ms jobs back to back from t=0; the quiet request sent at t=5 and started at `quietAt`. */
function round(floodStarts: number[], quietAt: number): NoisyRound {
  return { flood: floodStarts.map((t) => job(t)), quietSentAt: 5, quiet: job(quietAt) };
}

describe("quiet wait", () => {
  it("when two slots run jobs back to back, then one job's time is each job's own time", () => {
    // Six flood jobs and the quiet one in four waves of two: 0-160 ms, 7 jobs, 2 slots.
    expect(jobTimeMs(round([0, 0, 40, 40, 80, 80], 120), 2)).toBeCloseTo((160 * 2) / 7, 9);
  });

  it("when the quiet request starts at the next free slot, then its wait is about one job-time and one flood job went first", () => {
    // The first slot to free takes the flood's next turn (at 40 ms), the other slot the quiet one.
    const wait = quietWait(round([0, 0, 40, 80, 80, 120], 41), 2);
    expect(wait.waitMs).toBe(36);
    expect(wait.floodAhead).toBe(1);
    expect(wait.jobTimes).toBeCloseTo(36 / ((160 * 2) / 7), 9);
  });

  it("when the quiet request starts after the whole flood, then every waiting flood job counts as ahead", () => {
    expect(quietWait(round([0, 0, 40, 40, 80, 80], 120), 2).floodAhead).toBe(4);
  });

  it("when rounds are given, then the figure is their median in job-times and lists each round", () => {
    const waits = [1, 3, 2].map((jobTimes) => ({
      waitMs: jobTimes * 40,
      jobTimeMs: 40,
      jobTimes,
      floodAhead: jobTimes,
    }));
    expect(quietWaitFigure("fair", waits)).toEqual({
      label: "fair",
      value: 2,
      unit: "job-times",
      runs: [1, 3, 2],
      samples: 3,
    });
    expect(quietWaitNote("fair turns", waits)).toBe(
      "fair turns: quiet wait 80 ms, job time 40 ms, flood jobs started between its POST and its start 2 (medians)",
    );
  });
});
