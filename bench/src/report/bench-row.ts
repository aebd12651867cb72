import { median, percentile, round } from "../metrics/stats.js";
/**
 * One line of the benchmark: a figure of the real service (subject) next to the same figure of a
 * minimal equivalent measured in the same run (baseline), because on shared, noisy machines only
 * the ratio is comparable between runs.
 */
export interface Figure {
  /** What was measured, e.g. "full gateway" or "Express 5 + Queue.add". */
  label: string;
  /** The headline number the ratio compares (the median over repeated runs where there are several). */
  value: number;
  /** "job-times": a wait as a multiple of one job's time (the noisy-neighbour row). */
  unit: "req/s" | "ms" | "MB" | "tok/s" | "jobs/min" | "count" | "%" | "job-times";
  /** Latency percentiles where the figure has them (medians over runs for load tests). */
  p50Ms?: number;
  p99Ms?: number;
  /** The headline value of each repeated run, in the order they ran. */
  runs?: number[];
  /** Latency samples behind p50/p99 where they were taken one by one. */
  samples?: number;
  /** Non-2xx responses and socket errors; throughput counts successes only. */
  failures?: number;
  /** CPU time of the answering process per response, µs (median over runs), for load tests. */
  cpuUsPerResponse?: number;
}

/** `of: "ratio"` checks subject/baseline; `of: "subject"` checks the subject's headline value. */
export interface Target {
  of: "ratio" | "subject";
  op: ">=" | "<" | "<=";
  value: number;
  /** How the table shows it, e.g. "≥ 0.8× baseline" or "p50 < 5 ms". */
  text: string;
}

export interface BenchRow {
  /** The row group that produced it: "submit", "status", "queue", "memory", "speech", "generation". */
  group: string;
  name: string;
  subject: Figure;
  baseline: Figure;
  /** subject.value / baseline.value. */
  ratio: number;
  /** null for rows that report without a target (memory, speech, generation). */
  target: Target | null;
  pass: boolean | null;
  /** Method notes and warnings (e.g. failed requests during a load). */
  notes: string[];
}

export function meets(target: Target, subject: Figure, ratio: number): boolean {
  const actual = target.of === "ratio" ? ratio : subject.value;
  if (!Number.isFinite(actual)) return false;
  switch (target.op) {
    case ">=":
      return actual >= target.value;
    case "<":
      return actual < target.value;
    case "<=":
      return actual <= target.value;
  }
}

/**
 * A figure from repeated runs: their median as the value, every run kept; for times, the p50 and p99
 * beside it.
 */
export function medianFigure(label: string, values: number[], unit: Figure["unit"], digits = 1): Figure {
  const latencies =
    unit === "ms" ? { p50Ms: round(median(values), digits), p99Ms: round(percentile(values, 99), digits) } : {};
  return {
    label,
    value: round(median(values), digits),
    unit,
    runs: values.map((v) => round(v, digits)),
    samples: values.length,
    ...latencies,
  };
}

export function makeRow(fields: Omit<BenchRow, "ratio" | "pass" | "notes"> & { notes?: string[] }): BenchRow {
  const ratio = fields.subject.value / fields.baseline.value;
  const pass = fields.target ? meets(fields.target, fields.subject, ratio) : null;
  const failures = (fields.subject.failures ?? 0) + (fields.baseline.failures ?? 0);
  const notes = [...(fields.notes ?? [])];
  if (failures > 0) notes.push(`${failures} failed requests during the loads (not counted in throughput)`);
  return { ...fields, ratio, pass, notes };
}

export const ratioAtLeast = (value: number): Target => ({ of: "ratio", op: ">=", value, text: `≥ ${value}× baseline` });
export const ratioAtMost = (value: number): Target => ({ of: "ratio", op: "<=", value, text: `≤ ${value}× baseline` });
export const p50Below = (ms: number): Target => ({ of: "subject", op: "<", value: ms, text: `p50 < ${ms} ms` });
