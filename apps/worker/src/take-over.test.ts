import { describe, expect, it } from "@jest/globals";
import { loadWorkerConfig } from "./config.js";
import { latestRequeueMs, takeOverTiming } from "./take-over.js";

describe("a killed worker's job coming back", () => {
  const timing = takeOverTiming(loadWorkerConfig({}).JOB_LOCK_MS);

  it("when the defaults hold, then the job is back in the queue within 12.5 s of the kill, inside the 15 s promised", () => {
    expect(latestRequeueMs(timing)).toBe(12_500);
  });

  it("when a worker is alive, then its lock is renewed four times per lock, so three missed renewals cost it nothing", () => {
    expect(timing.lockDuration / timing.lockRenewTime).toBe(4);
  });

  it("when the stalled check runs, then more often than the lock lapses (it marks a job one check and moves it the next)", () => {
    expect(timing.stalledInterval).toBeLessThan(timing.lockDuration);
  });
});
