import { describe, expect, it } from "@jest/globals";
import { joinWithFades } from "./join-chunks.js";

const RATE = 22050;
const FADE = Math.round(RATE * 0.005);

function largestStep(samples: Int16Array, from: number, to: number): number {
  let largest = 0;
  for (let i = Math.max(1, from); i < Math.min(samples.length, to); i += 1)
    largest = Math.max(largest, Math.abs(samples[i]! - samples[i - 1]!));
  return largest;
}

describe("joinWithFades", () => {
  it("when pieces are joined, then the result is exactly as long as all of them together", () => {
    const joined = joinWithFades(
      [new Int16Array(1000), new Int16Array(500), new Int16Array(0), new Int16Array(7)],
      RATE,
    );
    expect(joined.length).toBe(1507);
  });

  it("when a piece ends high and the next starts low, then the join has no step (no click)", () => {
    const high = new Int16Array(2000).fill(20000);
    const low = new Int16Array(2000).fill(-20000);
    const naive = new Int16Array([...high, ...low]);
    expect(largestStep(naive, 1990, 2010)).toBe(40000);
    const joined = joinWithFades([high, low], RATE);
    // A raised cosine over FADE samples moves at most amplitude * π / (2 * FADE) per sample.
    expect(largestStep(joined, 0, joined.length)).toBeLessThanOrEqual(Math.ceil((20000 * Math.PI) / (2 * FADE)) + 1);
    expect(joined[1999]).toBe(0);
    expect(joined[2000]).toBe(0);
  });

  it("when pieces are joined, then the audio away from the edges is untouched", () => {
    const piece = Int16Array.from({ length: 3000 }, (_, i) => (i % 100) * 100);
    const joined = joinWithFades([piece, piece], RATE);
    expect(joined.subarray(FADE, 3000 - FADE)).toEqual(piece.subarray(FADE, 3000 - FADE));
    expect(joined.subarray(3000 + FADE, 6000 - FADE)).toEqual(piece.subarray(FADE, 3000 - FADE));
  });

  it("when the whole audio starts and ends loud, then it still starts and ends at zero", () => {
    const joined = joinWithFades([new Int16Array(1000).fill(15000)], RATE);
    expect(joined[0]).toBe(0);
    expect(joined[999]).toBe(0);
    expect(joined[500]).toBe(15000);
  });

  it("when a piece is shorter than two fades, then it is faded without overlapping itself", () => {
    const joined = joinWithFades([new Int16Array(10).fill(1000)], RATE);
    expect(joined[0]).toBe(0);
    expect(joined[9]).toBe(0);
    expect(Math.max(...joined)).toBeLessThanOrEqual(1000);
  });
});
