import { median, percentile, round } from "./stats.js";

describe("percentile", () => {
  it("when values are unsorted, then it interpolates between the closest ranks", () => {
    expect(percentile([40, 10, 30, 20], 50)).toBe(25);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 90)).toBe(10);
  });

  it("when p is 0 or 100, then it is the minimum or maximum", () => {
    expect([percentile([3, 1, 2], 0), percentile([3, 1, 2], 100)]).toEqual([1, 3]);
  });

  it("when there are no values, then it is NaN (a row shows n/a, not a made-up 0)", () => {
    expect(percentile([], 50)).toBeNaN();
  });

  it("when there is one value, then every percentile is that value", () => {
    expect([median([7]), percentile([7], 99)]).toEqual([7, 7]);
  });
});

describe("round", () => {
  it("when given digits, then it rounds to that many decimals", () => {
    expect([round(1.23456, 2), round(1.5, 0), round(2.0049, 3)]).toEqual([1.23, 2, 2.005]);
  });
});
