import { SPEECH_LIMITS } from "@chorus/contracts";
import { describe, expect, it } from "@jest/globals";
import { spokenPart } from "./spoken-part.js";

const codePoints = (text: string): number => [...text].length;

describe("spokenPart", () => {
  it("when the reply is exactly at the bound, then all of it is spoken, unchanged", () => {
    const reply = "The cat sat. The dog barked.";
    expect(spokenPart(reply, reply.length)).toEqual({ text: reply, whole: true });
  });

  it("when the reply is one character over, then it ends after the last sentence that fits", () => {
    const reply = "The cat sat. The dog barked.";
    expect(spokenPart(reply, reply.length - 1)).toEqual({ text: "The cat sat.", whole: false });
  });

  it("when several sentences fit, then all of them are spoken and the cut one is not", () => {
    const reply = "One. Two? Three! Four is a longer sentence.";
    expect(spokenPart(reply, 20)).toEqual({ text: "One. Two? Three!", whole: false });
  });

  it("when a sentence ends exactly at the bound, then it is spoken", () => {
    expect(spokenPart("One. Two. Three.", 9)).toEqual({ text: "One. Two.", whole: false });
  });

  it("when the first sentence alone is longer than the bound, then it is cut at the last space within it", () => {
    expect(spokenPart("Once upon a time there was a witch.", 15)).toEqual({ text: "Once upon a", whole: false });
    // The space just past the bound: the word before it ends at the bound and is kept whole.
    expect(spokenPart("Once upon a time there was a witch.", 16)).toEqual({ text: "Once upon a time", whole: false });
  });

  it("when there is no white space at all, then it is cut at the bound", () => {
    expect(spokenPart("abcdefghij", 4)).toEqual({ text: "abcd", whole: false });
  });

  it("when the text has characters outside the BMP, then the bound counts code points and no pair is split", () => {
    const reply = "🐈🐈🐈🐈🐈🐈";
    expect(spokenPart(reply, 6)).toEqual({ text: reply, whole: true });
    expect(spokenPart(reply, 4)).toEqual({ text: "🐈🐈🐈🐈", whole: false });
    // 5 code points are 8 UTF-16 units: counted in units, only "🐈 🐈" would fit.
    expect(spokenPart("🐈 🐈 🐈 🐈", 5)).toEqual({ text: "🐈 🐈 🐈", whole: false });
    expect(spokenPart("🐈 🐈 🐈 🐈", 4)).toEqual({ text: "🐈 🐈", whole: false });
  });

  it("when a reply is longer than the speech endpoint's bound, then what is spoken is within it and ends a sentence", () => {
    const reply = Array.from({ length: 300 }, (_, i) => `Sentence number ${i} says a little more.`).join(" ");
    expect(codePoints(reply)).toBeGreaterThan(SPEECH_LIMITS.textMaxChars);
    const { text, whole } = spokenPart(reply, SPEECH_LIMITS.textMaxChars);
    expect(whole).toBe(false);
    expect(codePoints(text)).toBeLessThanOrEqual(SPEECH_LIMITS.textMaxChars);
    // The next sentence would not have fitted: the longest run of whole sentences is spoken.
    const rest = reply.slice(text.length).trimStart();
    const next = rest.slice(0, rest.indexOf(".") + 1);
    expect(codePoints(`${text} ${next}`)).toBeGreaterThan(SPEECH_LIMITS.textMaxChars);
    expect(reply.startsWith(text)).toBe(true);
    expect(text).toMatch(/more\.$/);
  });
});
