import { makeRow, meets, p50Below, ratioAtLeast, type Figure } from "./bench-row.js";

const rps = (value: number, failures = 0): Figure => ({ label: "x", value, unit: "req/s", failures });
const ms = (value: number): Figure => ({ label: "x", value, unit: "ms", p50Ms: value });

describe("makeRow", () => {
  it("when the subject reaches 0.8 of the baseline, then a ratio target passes", () => {
    const row = makeRow({
      group: "submit",
      name: "r",
      subject: rps(800),
      baseline: rps(1000),
      target: ratioAtLeast(0.8),
    });
    expect([row.ratio, row.pass]).toEqual([0.8, true]);
  });

  it("when the subject is below 0.8 of the baseline, then a ratio target fails", () => {
    expect(
      makeRow({ group: "submit", name: "r", subject: rps(799), baseline: rps(1000), target: ratioAtLeast(0.8) }).pass,
    ).toBe(false);
  });

  it("when a latency target is set, then it checks the subject's p50, whatever the ratio", () => {
    const row = makeRow({ group: "queue", name: "r", subject: ms(4.9), baseline: ms(1), target: p50Below(5) });
    expect([row.ratio, row.pass]).toEqual([4.9, true]);
    expect(makeRow({ group: "queue", name: "r", subject: ms(5), baseline: ms(1), target: p50Below(5) }).pass).toBe(
      false,
    );
  });

  it("when there is no target, then pass is null", () => {
    expect(makeRow({ group: "memory", name: "r", subject: rps(1), baseline: rps(1), target: null }).pass).toBeNull();
  });

  it("when requests failed during the loads, then a note says how many", () => {
    const row = makeRow({
      group: "submit",
      name: "r",
      subject: rps(1, 3),
      baseline: rps(1, 2),
      target: null,
      notes: ["method"],
    });
    expect(row.notes).toEqual(["method", "5 failed requests during the loads (not counted in throughput)"]);
  });
});

describe("meets", () => {
  it("when the figure is not a number, then no target is met", () => {
    expect(meets(ratioAtLeast(0.8), rps(1), Number.NaN)).toBe(false);
    expect(meets(p50Below(5), ms(Number.NaN), 1)).toBe(false);
  });
});
