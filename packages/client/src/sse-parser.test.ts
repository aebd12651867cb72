import { SseParser, type SseEvent } from "./sse-parser.js";

function parse(...chunks: string[]): { events: SseEvent[]; parser: SseParser } {
  const events: SseEvent[] = [];
  const parser = new SseParser((event) => events.push(event));
  for (const chunk of chunks) parser.feed(chunk);
  return { events, parser };
}

/** Every way of cutting `text` in two, and into single characters. */
function splits(text: string): string[][] {
  const cuts = Array.from({ length: text.length + 1 }, (_, i) => [text.slice(0, i), text.slice(i)]);
  return [...cuts, [...text]];
}

const STREAM =
  'event: status\r\nid: 7\r\ndata: {"status":"processing",\r\ndata: "progress":0.5}\r\n\r\n: keep-alive\r\n\r\nevent: status\rid: 8\rdata: {"status":"completed"}\r\r';

describe("SseParser", () => {
  it("when an event has several data lines, then they are joined with LF and the event carries its type and id", () => {
    const { events } = parse("event: status\nid: 3\ndata: first\ndata: second\n\n");
    expect(events).toEqual([{ event: "status", data: "first\nsecond", lastEventId: "3" }]);
  });

  it.each(splits(STREAM).map((chunks) => [JSON.stringify(chunks), chunks]))(
    "when the stream comes cut as %s, then the same events come out",
    (_name, chunks) => {
      const { events, parser } = parse(...chunks);
      expect(events).toEqual([
        { event: "status", data: '{"status":"processing",\n"progress":0.5}', lastEventId: "7" },
        { event: "status", data: '{"status":"completed"}', lastEventId: "8" },
      ]);
      expect(parser.lastEventId).toBe("8");
    },
  );

  it("when a CRLF is split between chunks, then it ends one line, not two (no empty line dispatches early)", () => {
    const { events } = parse("data: a\r", "\ndata: b\r\n\r\n");
    expect(events).toEqual([{ event: "message", data: "a\nb", lastEventId: "" }]);
  });

  it("when lines are comments, then they are ignored and dispatch nothing", () => {
    const { events } = parse(": keep-alive\n\n:\n\n: data: no\n\n");
    expect(events).toEqual([]);
  });

  it("when a value has no space or two after the colon, then only one space is stripped, and a line without a colon is a field with an empty value", () => {
    const { events } = parse("data:tight\ndata:  two\ndata\ndata: a: b\n\n");
    expect(events).toEqual([{ event: "message", data: "tight\n two\n\na: b", lastEventId: "" }]);
  });

  it("when an event has no data, then nothing is dispatched but its id is remembered", () => {
    const { events, parser } = parse("id: 41\nevent: status\n\n");
    expect(events).toEqual([]);
    expect(parser.lastEventId).toBe("41");
  });

  it("when an id contains NUL, then it is ignored; an empty id resets the last id", () => {
    expect(parse("id: 5\n\nid: 6\0\ndata: x\n\n").events).toEqual([{ event: "message", data: "x", lastEventId: "5" }]);
    expect(parse("id: 5\n\nid\ndata: x\n\n").events).toEqual([{ event: "message", data: "x", lastEventId: "" }]);
  });

  it("when the stream starts with a BOM and has unknown fields and a retry, then the BOM and unknown fields are ignored and retry is read", () => {
    const { events, parser } = parse("\uFEFFdata: x\nfoo: bar\nretry: 2500\n\n");
    expect(events).toEqual([{ event: "message", data: "x", lastEventId: "" }]);
    expect(parser.retryMs).toBe(2500);
  });

  it("when the stream ends in the middle of an event, then that event is not dispatched", () => {
    expect(parse("data: complete\n\ndata: cut off\n").events).toEqual([
      { event: "message", data: "complete", lastEventId: "" },
    ]);
  });

  it("when data is empty, then an event with empty data is dispatched", () => {
    expect(parse("data:\n\n").events).toEqual([{ event: "message", data: "", lastEventId: "" }]);
  });
});
