import { makeRow, p50Below, ratioAtLeast } from "./bench-row.js";
import { formatFigure, formatTable } from "./format-table.js";

describe("formatFigure", () => {
  it("when the figure is throughput, then it shows req/s with p50 and p99", () => {
    expect(formatFigure({ label: "g", value: 3210.4, unit: "req/s", p50Ms: 12, p99Ms: 40 })).toBe(
      "3,210 req/s (p50 12 / p99 40 ms)",
    );
  });

  it("when the figure is a latency, then it shows p50 and p99 with two decimals", () => {
    expect(formatFigure({ label: "g", value: 1.234, unit: "ms", p50Ms: 1.234, p99Ms: 4.5 })).toBe(
      "p50 1.23 / p99 4.50 ms",
    );
  });

  it("when a latency is 100 ms or more, then it shows whole milliseconds", () => {
    expect(formatFigure({ label: "g", value: 812.4, unit: "ms", p50Ms: 812.4, p99Ms: 1033.6 })).toBe(
      "p50 812 / p99 1,034 ms",
    );
  });

  it("when the figure is a token rate, then it shows tok/s with one decimal", () => {
    expect(formatFigure({ label: "g", value: 312.46, unit: "tok/s" })).toBe("312.5 tok/s");
  });

  it("when the figure is a wait in job-times, then it shows one decimal", () => {
    expect(formatFigure({ label: "g", value: 28.46, unit: "job-times" })).toBe("28.5 job-times");
  });

  it("when a number is missing, then it shows n/a", () => {
    expect(formatFigure({ label: "g", value: Number.NaN, unit: "MB" })).toBe("n/a MB");
  });
});

describe("formatTable", () => {
  const rows = [
    makeRow({
      group: "submit",
      name: "submit row",
      subject: { label: "gw", value: 700, unit: "req/s", p50Ms: 1, p99Ms: 2 },
      baseline: { label: "min", value: 1000, unit: "req/s", p50Ms: 1, p99Ms: 2 },
      target: ratioAtLeast(0.8),
    }),
    makeRow({
      group: "queue",
      name: "queue row",
      subject: { label: "gw", value: 2, unit: "ms" },
      baseline: { label: "min", value: 1, unit: "ms" },
      target: p50Below(5),
      notes: ["one at a time"],
    }),
  ];
  const lines = formatTable(rows).split("\n");

  it("when rows are given, then the header, a rule and one line per row come first", () => {
    expect(lines[0]).toMatch(/^row\s+subject\s+baseline\s+ratio\s+target\s+result$/);
    expect(lines[2]).toMatch(/^submit row .* 0\.70× +≥ 0\.8× baseline +FAIL$/);
    expect(lines[3]).toMatch(/^queue row .* 2\.00× +p50 < 5 ms +PASS$/);
  });

  it("when rows are given, then a legend names each subject and baseline, with notes", () => {
    expect(lines).toContain("- queue row: subject = gw; baseline = min");
    expect(lines).toContain("    note: one at a time");
  });
});
