import { describe, expect, it } from "@jest/globals";
import { ProgressEstimator } from "./progress-estimator.js";
import { ProgressReporter, type ProgressSink } from "./progress-reporter.js";

interface Write {
  progress: number;
  etaSeconds: number;
  text: string | undefined;
  resolve: () => void;
  reject: (error: Error) => void;
}

/** A sink whose writes stay pending until the test settles them by hand. */
function manualSink() {
  const writes: Write[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const sink: ProgressSink = (progress, etaSeconds, text) =>
    new Promise<void>((resolve, reject) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const done = () => inFlight--;
      writes.push({
        progress,
        etaSeconds,
        text,
        resolve: () => (done(), resolve()),
        reject: (e) => (done(), reject(e)),
      });
    });
  return { sink, writes, maxInFlight: () => maxInFlight };
}

/** Lets queued promise callbacks (the reporter's catch/finally) run. */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

function setup(intervalMs = 1_000) {
  let now = 0;
  const clock = { set: (ms: number) => void (now = ms) };
  const { sink, writes, maxInFlight } = manualSink();
  // expected 100 of max 200, started at 0, fallback 10 t/s.
  const reporter = new ProgressReporter(new ProgressEstimator(100, 200, 0, 10), sink, intervalMs, () => now);
  return { reporter, writes, clock, maxInFlight };
}

describe("ProgressReporter", () => {
  it("when many token updates arrive inside one interval, then exactly one write is made", async () => {
    const { reporter, writes, clock } = setup();
    clock.set(500);
    reporter.onTokens(5);
    writes[0]?.resolve();
    await reporter.settle();
    for (let t = 501; t < 1_500; t += 7) {
      clock.set(t);
      reporter.onTokens(t - 490);
    }
    expect(writes).toHaveLength(1);
    // 5 tokens in 0.5 s = 10 t/s; 95 remaining -> 9.5 s.
    expect({ progress: writes[0]?.progress, etaSeconds: writes[0]?.etaSeconds }).toEqual({
      progress: 0.05,
      etaSeconds: 9.5,
    });
  });

  it("when a full interval has passed since the last write, then the next update writes the current estimate", async () => {
    const { reporter, writes, clock } = setup();
    clock.set(0);
    reporter.onTokens(0);
    writes[0]?.resolve();
    await reporter.settle();
    clock.set(999);
    reporter.onTokens(40);
    expect(writes).toHaveLength(1);
    clock.set(1_000);
    reporter.onTokens(50);
    expect(writes).toHaveLength(2);
    // 50 tokens in 1 s = 50 t/s; 50 remaining -> 1 s.
    expect({ progress: writes[1]?.progress, etaSeconds: writes[1]?.etaSeconds }).toEqual({
      progress: 0.5,
      etaSeconds: 1,
    });
  });

  it("when a write is still in flight, then no second write starts even after the interval", async () => {
    const { reporter, writes, clock, maxInFlight } = setup();
    clock.set(0);
    reporter.onTokens(1);
    for (let t = 1_000; t <= 10_000; t += 1_000) {
      clock.set(t);
      reporter.onTokens(t / 100);
    }
    expect(writes).toHaveLength(1);
    writes[0]?.resolve();
    await reporter.settle();
    reporter.onTokens(100);
    expect(writes).toHaveLength(2);
    writes[1]?.resolve();
    await reporter.settle();
    expect(maxInFlight()).toBe(1);
  });

  it("when the sink rejects a write, then nothing throws and a later write still goes out", async () => {
    const { reporter, writes, clock } = setup();
    clock.set(0);
    expect(() => reporter.onTokens(1)).not.toThrow();
    writes[0]?.reject(new Error("redis down"));
    await expect(reporter.settle()).resolves.toBeUndefined();
    await flush();
    clock.set(1_000);
    reporter.onTokens(20);
    expect(writes).toHaveLength(2);
    writes[1]?.resolve();
    await reporter.settle();
  });

  it("when a write is in flight, then settle() resolves only after it completes", async () => {
    const { reporter, writes, clock } = setup();
    clock.set(0);
    reporter.onTokens(1);
    let settled = false;
    const settling = reporter.settle().then(() => {
      settled = true;
    });
    await flush();
    expect(settled).toBe(false);
    writes[0]?.resolve();
    await settling;
    expect(settled).toBe(true);
  });

  it("when updates carry the reply so far, then each write carries the text of the update that made it", async () => {
    const { reporter, writes, clock } = setup();
    clock.set(0);
    reporter.onTokens(1, "Once");
    clock.set(500);
    reporter.onTokens(2, "Once upon"); // inside the interval: not written, nor kept
    writes[0]?.resolve();
    await reporter.settle();
    clock.set(1_000);
    reporter.onTokens(3, "Once upon a");
    writes[1]?.resolve();
    await reporter.settle();
    expect(writes.map((w) => w.text)).toEqual(["Once", "Once upon a"]);
  });

  it("when nothing is in flight, then settle() resolves at once", async () => {
    const { reporter, writes } = setup();
    await expect(reporter.settle()).resolves.toBeUndefined();
    expect(writes).toHaveLength(0);
  });
});

describe("ProgressReporter, first write deferred (a batch line)", () => {
  it("when the job ends within one interval, then no progress is written; past it, progress is written as usual", async () => {
    const { reporter, writes, clock } = setup();
    reporter.deferFirstWrite();
    for (let t = 1; t < 1_000; t += 50) {
      clock.set(t);
      reporter.onTokens(t);
    }
    expect(writes).toHaveLength(0);
    clock.set(1_000);
    reporter.onTokens(120);
    expect(writes).toHaveLength(1);
    writes[0]?.resolve();
    await reporter.settle();
  });
});
