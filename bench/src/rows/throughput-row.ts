import type { LoadPair, LoadSeries } from "../load/compare-loads.js";
import { makeRow, ratioAtLeast, type BenchRow, type Figure } from "../report/bench-row.js";
import { round } from "../metrics/stats.js";

function throughputFigure(label: string, series: LoadSeries): Figure {
  return {
    label,
    value: round(series.rps, 1),
    unit: "req/s",
    p50Ms: series.p50Ms,
    p99Ms: series.p99Ms,
    runs: series.runs.map((r) => round(r.rps, 1)),
    failures: series.failed,
    cpuUsPerResponse: round(series.serverCpuUs, 0),
  };
}

export interface ThroughputRowSpec {
  group: string;
  name: string;
  subjectLabel: string;
  baselineLabel: string;
  /** Omitted for rows that explain another row rather than meet a target. */
  minRatio?: number;
  connections: number;
}

/** Subject over baseline for each round (runs of the same round ran back to back). */
export function pairRatios(loads: LoadPair): string[] {
  return loads.subject.runs.map((run, i) => {
    const baseline = loads.baseline.runs[i]?.rps ?? 0;
    return baseline > 0 ? `${round(run.rps / baseline, 2).toFixed(2)}×` : "n/a";
  });
}

/**
 * The server CPU each response cost, both sides: other tenants of a shared machine take cores and
 * move throughput, but hardly what a response costs, so this ratio is the steadier one.
 */
export function cpuNote(loads: LoadPair): string {
  const subject = loads.subject.serverCpuUs;
  const baseline = loads.baseline.serverCpuUs;
  if (!Number.isFinite(subject) || !Number.isFinite(baseline)) return "server CPU per response: n/a (no /proc here)";
  return `server CPU per response (median): ${Math.round(subject)} µs vs ${Math.round(baseline)} µs; baseline/subject ${round(baseline / subject, 2).toFixed(2)}×`;
}

/** A row comparing two load series: throughput ratio (against a minimum where given), latencies alongside. */
export function throughputRow(spec: ThroughputRowSpec, loads: LoadPair): BenchRow {
  return makeRow({
    group: spec.group,
    name: spec.name,
    subject: throughputFigure(spec.subjectLabel, loads.subject),
    baseline: throughputFigure(spec.baselineLabel, loads.baseline),
    target: spec.minRatio === undefined ? null : ratioAtLeast(spec.minRatio),
    notes: [
      `${spec.connections} connections; median of ${loads.subject.runs.length} alternating run(s) each; latencies of 2xx responses in whole ms`,
      `ratio of each subject/baseline pair, in run order (the spread is this machine's noise): ${pairRatios(loads).join(", ")}`,
      cpuNote(loads),
    ],
  });
}
