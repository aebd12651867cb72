import { describe, expect, it } from "@jest/globals";
import { floodWorkShare, type StartedJob } from "./work-share.js";

const jobs = (pattern: string, large = 40): StartedJob[] =>
  [...pattern].map((c, i) => ({ flood: c === "L" || c === "F", cost: c === "L" ? large : 1, startedAt: i }));

describe("the flooding key's share of the work started while both keys waited", () => {
  it("when turns are fair by cost, then one long request is matched by its cost in short ones: half", () => {
    expect(floodWorkShare(jobs(`L${"s".repeat(40)}L`))).toBe(0.5);
  });

  it("when the keys take one start each in turn, then long requests take almost all the work", () => {
    expect(floodWorkShare(jobs("LsLsLs"))).toBeCloseTo(120 / 122);
  });

  it("when jobs start in arrival order, then the key that sent first has it all", () => {
    expect(floodWorkShare(jobs("FFFsss"))).toBe(1);
  });

  it("when the requests cost alike and turns alternate, then about half (the start that empties a key counts)", () => {
    expect(floodWorkShare(jobs("FsFsFs"))).toBe(3 / 5);
    expect(floodWorkShare(jobs("Fs".repeat(30)))).toBe(30 / 59);
  });

  it("when the start stamps come unordered, then they are read in start order", () => {
    const shuffled = jobs("sFsF").reverse();
    expect(floodWorkShare(shuffled)).toBe(1 / 3);
  });
});
