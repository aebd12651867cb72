import { describe, expect, it } from "@jest/globals";
import { rms } from "../../../test-support/audio/audio-inspect.js";
import { sineWave, zeroCrossingsPerSecond } from "../../../test-support/audio/test-signals.js";
import { timeStretch } from "./time-stretch.js";

const RATE = 22050;

describe("timeStretch", () => {
  it.each([1.25, 1.5, 2])("when the factor is %s, then the audio is that much shorter", (factor) => {
    const input = sineWave(2, 220, RATE);
    expect(timeStretch(input, RATE, factor).length).toBe(Math.round(input.length / factor));
  });

  it("when a tone is sped up, then its pitch stays the same", () => {
    const input = sineWave(2, 220, RATE);
    const output = timeStretch(input, RATE, 1.5);
    const middle = output.subarray(RATE * 0.1, output.length - RATE * 0.1);
    expect(zeroCrossingsPerSecond(middle, RATE)).toBeGreaterThan(440 * 0.97);
    expect(zeroCrossingsPerSecond(middle, RATE)).toBeLessThan(440 * 1.03);
  });

  it("when a tone is sped up, then its loudness is kept (windows add up in phase)", () => {
    const input = sineWave(2, 220, RATE);
    const output = timeStretch(input, RATE, 1.5);
    const middle = output.subarray(RATE * 0.1, output.length - RATE * 0.1);
    expect(rms(middle)).toBeGreaterThan(rms(input) * 0.9);
    expect(rms(middle)).toBeLessThan(rms(input) * 1.1);
  });

  it("when the factor is 1, then the samples are returned unchanged", () => {
    const input = sineWave(0.1, 220, RATE);
    expect(timeStretch(input, RATE, 1)).toEqual(input);
  });

  it("when the factor is not positive, then it throws", () => {
    expect(() => timeStretch(new Int16Array(10), RATE, 0)).toThrow(RangeError);
  });
});
