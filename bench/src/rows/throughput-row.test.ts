import type { LoadResult } from "../load/autocannon.js";
import type { LoadSeries } from "../load/compare-loads.js";
import { cpuNote, pairRatios, throughputRow } from "./throughput-row.js";

const run = (rps: number): LoadResult => ({ rps, p50Ms: 1, p99Ms: 2, ok: rps, failed: 0 }) as LoadResult;
const series = (values: number[], serverCpuUs = Number.NaN): LoadSeries => ({
  runs: values.map(run),
  rps: [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0,
  p50Ms: 1,
  p99Ms: 2,
  failed: 0,
  serverCpuUs,
});

describe("throughput rows", () => {
  it("when runs alternate, then each subject run is compared with the baseline run of its round", () => {
    expect(pairRatios({ subject: series([80, 45, 90]), baseline: series([100, 90, 90]) })).toEqual([
      "0.80×",
      "0.50×",
      "1.00×",
    ]);
  });

  it("when a baseline run served nothing, then its pair has no ratio rather than Infinity", () => {
    expect(pairRatios({ subject: series([10]), baseline: series([0]) })).toEqual(["n/a"]);
  });

  it("when a row is made, then its notes carry the pair ratios next to the medians' ratio", () => {
    const row = throughputRow(
      { group: "status", name: "status", subjectLabel: "s", baselineLabel: "b", minRatio: 0.8, connections: 50 },
      { subject: series([80, 45, 90]), baseline: series([100, 90, 90]) },
    );
    expect(row.ratio).toBeCloseTo(80 / 90, 2);
    expect(row.notes.join("\n")).toContain("0.80×, 0.50×, 1.00×");
    expect([row.target?.value, row.pass]).toEqual([0.8, true]);
  });

  it("when a row has no minimum ratio (it explains another row), then it has no target and no verdict", () => {
    const row = throughputRow(
      { group: "status-steps", name: "step", subjectLabel: "s", baselineLabel: "b", connections: 50 },
      { subject: series([10]), baseline: series([100]) },
    );
    expect([row.target, row.pass]).toEqual([null, null]);
  });

  it("when both servers' CPU was measured, then the note compares what a response cost on each side", () => {
    expect(cpuNote({ subject: series([80], 250), baseline: series([100], 200) })).toBe(
      "server CPU per response (median): 250 µs vs 200 µs; baseline/subject 0.80×",
    );
  });

  it("when CPU could not be read, then the note says n/a rather than a ratio of NaNs", () => {
    expect(cpuNote({ subject: series([80]), baseline: series([100], 200) })).toContain("n/a");
  });
});
