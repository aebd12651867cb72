import { describe, expect, it } from "@jest/globals";
import { ReplyDiverged, StreamedReply } from "./streamed-reply.js";

describe("StreamedReply", () => {
  it("when one attempt's pieces come in order, then each adds what it says", () => {
    const reply = new StreamedReply();
    expect(reply.delta("a", 0, "Once")).toBe("Once");
    expect(reply.delta("a", 4, " upon")).toBe(" upon");
    expect(reply.final("Once upon a time.")).toBe(" a time.");
  });

  it("when a piece was missed, then nothing is sent until the record's partial reply fills the gap", () => {
    const reply = new StreamedReply();
    reply.delta("a", 0, "Once");
    expect(reply.delta("a", 9, " a time")).toBe("");
    expect(reply.snapshot("a", "Once upon a")).toBe(" upon a");
    expect(reply.delta("a", 11, " time")).toBe(" time");
  });

  it("when a new attempt starts over with the same text, then the client is given only what extends its own", () => {
    const reply = new StreamedReply();
    reply.delta("a", 0, "The cat sat on");
    expect(reply.delta("b", 0, "The cat")).toBe("");
    expect(reply.delta("b", 7, " sat on the mat")).toBe(" the mat");
    expect(reply.delta("a", 14, " a hat")).toBe("");
    expect(reply.final("The cat sat on the mat.")).toBe(".");
  });

  it("when a new attempt writes a different reply, then it diverges instead of splicing the two", () => {
    const reply = new StreamedReply();
    reply.delta("a", 0, "The cat sat on");
    expect(() => reply.delta("b", 0, "A dog ran to the park today.")).toThrow(ReplyDiverged);
    expect(reply.text).toBe("The cat sat on");
  });

  it("when a new attempt is still behind but already differs, then it diverges at once", () => {
    const reply = new StreamedReply();
    reply.delta("a", 0, "The cat sat on");
    expect(() => reply.snapshot("b", "A dog")).toThrow(ReplyDiverged);
  });

  it("when the final reply does not continue what was sent, then it diverges", () => {
    const reply = new StreamedReply();
    reply.delta("a", 0, "The cat sat on");
    expect(() => reply.final("A dog ran to the park today.")).toThrow(ReplyDiverged);
  });

  it("when the record's partial reply lags behind the deltas, then nothing is sent twice", () => {
    const reply = new StreamedReply();
    reply.delta("a", 0, "Once upon a");
    expect(reply.snapshot("a", "Once")).toBe("");
    expect(reply.final("Once upon a time")).toBe(" time");
  });
});
