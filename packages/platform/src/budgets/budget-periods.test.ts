import { describe, expect, it } from "@jest/globals";
import { nextUtcDay, nextUtcMonth, utcDayOf, utcMonthOf } from "./budget-periods.js";

describe("budget periods", () => {
  it("when a time is given, then its day and month are the UTC ones", () => {
    const ms = Date.parse("2026-11-30T23:59:59.999Z");
    expect([utcDayOf(ms), utcMonthOf(ms)]).toEqual(["2026-11-30", "2026-11"]);
  });

  it("when the last millisecond of a month is given, then the next day and the next month both start a millisecond later", () => {
    const ms = Date.parse("2026-12-31T23:59:59.999Z");
    expect(nextUtcDay(ms)).toBe(Date.parse("2027-01-01T00:00:00Z"));
    expect(nextUtcMonth(ms)).toBe(Date.parse("2027-01-01T00:00:00Z"));
  });

  it("when a time is exactly midnight, then the next day is the following midnight", () => {
    const ms = Date.parse("2028-02-28T00:00:00Z");
    expect(nextUtcDay(ms)).toBe(Date.parse("2028-02-29T00:00:00Z"));
    expect(nextUtcMonth(ms)).toBe(Date.parse("2028-03-01T00:00:00Z"));
  });
});
