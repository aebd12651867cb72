import type { BenchRow, Figure } from "./bench-row.js";
import type { MachineInfo } from "./machine-info.js";

const HEADER = ["row", "subject", "baseline", "ratio", "target", "result"] as const;

function num(value: number | undefined, digits: number): string {
  if (value === undefined || !Number.isFinite(value)) return "n/a";
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Throughput with its latencies, a latency as p50/p99 (whole ms from 100 ms up), memory in MB, tokens/s. */
export function formatFigure(figure: Figure): string {
  switch (figure.unit) {
    case "req/s":
      return `${num(figure.value, 0)} req/s (p50 ${num(figure.p50Ms, 0)} / p99 ${num(figure.p99Ms, 0)} ms)`;
    case "ms": {
      const p50 = figure.p50Ms ?? figure.value;
      const digits = p50 >= 100 ? 0 : 2;
      return `p50 ${num(p50, digits)} / p99 ${num(figure.p99Ms, digits)} ms`;
    }
    case "MB":
      return `${num(figure.value, 1)} MB`;
    case "tok/s":
      return `${num(figure.value, 1)} tok/s`;
    case "jobs/min":
      return `${num(figure.value, 0)} jobs/min`;
    case "count":
      return num(figure.value, 0);
    case "%":
      return `${num(figure.value, 0)} %`;
    case "job-times":
      return `${num(figure.value, 1)} job-times`;
  }
}

function cells(row: BenchRow): string[] {
  const result = row.pass === null ? "—" : row.pass ? "PASS" : "FAIL";
  return [
    row.name,
    formatFigure(row.subject),
    formatFigure(row.baseline),
    `${num(row.ratio, 2)}×`,
    row.target?.text ?? "—",
    result,
  ];
}

/** A plain-text table (fixed-width columns) followed by what each subject and baseline is. */
export function formatTable(rows: readonly BenchRow[]): string {
  const body = rows.map(cells);
  const widths = HEADER.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? "").length)));
  const line = (r: readonly string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  const rule = widths.map((w) => "-".repeat(w)).join("  ");
  const legend = rows.flatMap((row) => [
    `- ${row.name}: subject = ${row.subject.label}; baseline = ${row.baseline.label}`,
    ...row.notes.map((note) => `    note: ${note}`),
  ]);
  return [line(HEADER), rule, ...body.map(line), "", ...legend].join("\n");
}

export function formatMachine(machine: MachineInfo): string {
  return `${machine.cpuCount} × ${machine.cpuModel}, ${num(machine.totalMemoryMB / 1024, 1)} GB RAM, ${machine.os}, Node ${machine.node}, load ${machine.loadAverage1m}, ${machine.date}`;
}
