import { describe, expect, it } from "@jest/globals";
import {
  cleanPartialReply,
  cleanReply,
  replyFinishReason,
  STOP_SEQUENCES,
  stopSequencesFor,
} from "./stop-sequences.js";

describe("cleanPartialReply", () => {
  it("when the text ends in the start of a stop sequence, then that start is not shown", () => {
    expect(cleanPartialReply("Once upon a time.\nYo")).toBe("Once upon a time.");
    expect(cleanPartialReply("Once upon a time.\n### Us")).toBe("Once upon a time.");
    expect(cleanPartialReply("Once upon a time.\n")).toBe("Once upon a time.");
  });

  it("when the text holds a whole stop sequence, then it and what follows are not shown", () => {
    expect(cleanPartialReply("The end.\nUser: and then?")).toBe("The end.");
  });

  it("when the text ends in half a character, then the replacement character is not shown", () => {
    expect(cleanPartialReply("A cat \uFFFD")).toBe("A cat");
  });

  it("when the text is cleaned, then it is what the final reply cleaning gives, and a prefix of any final reply that continues it", () => {
    const partial = "  Hello there\nYou";
    for (const final of ["  Hello there\nYouth is fleeting.", "  Hello there", "  Hello there\n"]) {
      expect(cleanReply(final).startsWith(cleanPartialReply(partial))).toBe(true);
    }
    expect(cleanPartialReply(" plain text ")).toBe(cleanReply(" plain text "));
  });

  it("when the job has its own stop sequences, then they are cut and held back like the turn markers", () => {
    const stops = stopSequencesFor(["THE END", "###"]);
    expect(stops).toEqual([...STOP_SEQUENCES, "THE END", "###"]);
    expect(cleanPartialReply("So it was. THE END and after", stops)).toBe("So it was.");
    expect(cleanPartialReply("So it was. THE E", stops)).toBe("So it was.");
    expect(cleanPartialReply("So it was. ##", stops)).toBe("So it was.");
    expect(cleanPartialReply("So it was. THE E")).toBe("So it was. THE E");
  });

  it("when the final text holds a stop sequence its engine was not told (an upstream takes only 4), then the reply ends before it", () => {
    expect(cleanReply(" Hi.\nYou: and more", stopSequencesFor(["A", "B", "C", "D"]))).toBe("Hi.");
  });

  it("when the text ends in half a character after a stop sequence's start, then neither is shown", () => {
    expect(cleanPartialReply("So Th\uFFFD", stopSequencesFor(["Thé end"]))).toBe("So");
  });

  it("when the text's end begins a stop sequence more than once over, then only the part that may still complete it waits", () => {
    expect(cleanPartialReply("x aaaa", stopSequencesFor(["ab"]))).toBe("x aaa");
  });
});

describe("replyFinishReason", () => {
  it("when the engine stopped by itself, then the reply ended with stop", () => {
    expect(replyFinishReason("The end.", "stop", STOP_SEQUENCES)).toBe("stop");
  });

  it("when the engine reached its limit, then length, unless the text holds a stop sequence the worker cuts at", () => {
    expect(replyFinishReason("and then the cat", "length", STOP_SEQUENCES)).toBe("length");
    expect(replyFinishReason("The end.\nYou: more", "length", STOP_SEQUENCES)).toBe("stop");
    expect(replyFinishReason("so far. THE END", "length", stopSequencesFor(["THE END"]))).toBe("stop");
  });
});
