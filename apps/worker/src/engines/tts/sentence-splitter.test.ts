import { describe, expect, it } from "@jest/globals";
import { splitForStreaming, splitIntoChunks } from "./sentence-splitter.js";

const normalize = (text: string): string => text.replace(/\s+/g, " ").trim();

describe("splitIntoChunks", () => {
  it("when the text fits, then it is one chunk, trimmed", () => {
    expect(splitIntoChunks("  Hello there. How are you?  ", 100)).toEqual(["Hello there. How are you?"]);
  });

  it("when sentences exceed the limit together, then chunks end at sentence ends and none passes the limit", () => {
    const text = "The cat sat. The dog barked loudly! Did the bird sing? Yes, it did. Then all was quiet.";
    const chunks = splitIntoChunks(text, 30);
    // "Did the bird sing? Yes, it did." would be 31 characters: the two sentences go to separate chunks.
    expect(chunks).toEqual([
      "The cat sat.",
      "The dog barked loudly!",
      "Did the bird sing?",
      "Yes, it did.",
      "Then all was quiet.",
    ]);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(30);
  });

  it("when sentences are packed, then several short ones share a chunk", () => {
    expect(splitIntoChunks("One. Two. Three. Four.", 10)).toEqual(["One. Two.", "Three.", "Four."]);
  });

  it("when a long text is split, then joining the chunks gives back every word in order", () => {
    const text = Array.from({ length: 120 }, (_, i) => `Sentence number ${i} has a few words, and a clause.`).join(" ");
    const chunks = splitIntoChunks(text, 500);
    expect(chunks.length).toBeGreaterThan(5);
    expect(normalize(chunks.join(" "))).toBe(normalize(text));
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(500);
    for (const chunk of chunks) expect(chunk).toMatch(/\.$/);
  });

  it("when one sentence is longer than the limit, then it is cut after a clause mark near the limit", () => {
    const chunks = splitIntoChunks("Alpha beta gamma delta epsilon, zeta eta theta iota kappa lambda mu.", 40);
    expect(chunks[0]).toBe("Alpha beta gamma delta epsilon,");
    expect(normalize(chunks.join(" "))).toBe("Alpha beta gamma delta epsilon, zeta eta theta iota kappa lambda mu.");
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(40);
  });

  it("when a sentence has no clause mark, then it is cut at a space, never inside a word", () => {
    const words = Array.from({ length: 50 }, (_, i) => `word${i}`);
    const chunks = splitIntoChunks(words.join(" "), 45);
    expect(chunks.flatMap((chunk) => chunk.split(" "))).toEqual(words);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(45);
  });

  it("when a word is longer than the limit, then it is cut hard, keeping every character", () => {
    const word = "x".repeat(25);
    const chunks = splitIntoChunks(word, 10);
    expect(chunks).toEqual(["x".repeat(10), "x".repeat(10), "x".repeat(5)]);
  });

  it("when a hard cut would fall inside an emoji, then the emoji stays whole", () => {
    const chunks = splitIntoChunks("ab😀😀😀", 3);
    expect(chunks.join("")).toBe("ab😀😀😀");
    for (const chunk of chunks) expect(chunk).not.toMatch(/[\uD800-\uDBFF]$|^[\uDC00-\uDFFF]/);
  });

  it("when the text is only white space, then there are no chunks", () => {
    expect(splitIntoChunks(" \n\t ", 100)).toEqual([]);
  });

  it("when maxChars is below 1, then it throws", () => {
    expect(() => splitIntoChunks("Hi.", 0)).toThrow(RangeError);
  });
});

describe("splitForStreaming", () => {
  const text = Array.from({ length: 60 }, (_, i) => `Sentence number ${i} has a few words in it.`).join(" ");

  it("when a long text is split, then the first chunk is short, the rest as large as whole speech's, and every word stays in order", () => {
    const chunks = splitForStreaming(text, 1000, 160);
    expect(chunks[0]!.length).toBeLessThanOrEqual(160);
    expect(chunks[0]!.length).toBeGreaterThan(100); // sentences packed up to the limit
    expect(chunks.slice(1, -1).every((chunk) => chunk.length > 900 && chunk.length <= 1000)).toBe(true);
    expect(chunks.length).toBe(1 + splitIntoChunks(chunks.slice(1).join(" "), 1000).length);
    expect(normalize(chunks.join(" "))).toBe(normalize(text));
    for (const chunk of chunks) expect(chunk).toMatch(/\.$/);
  });

  it("when the text is one short sentence, then it is one chunk", () => {
    expect(splitForStreaming("Mind the cauldron.", 1000)).toEqual(["Mind the cauldron."]);
  });
});
