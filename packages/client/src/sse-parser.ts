/** One dispatched Server-Sent Event. */
export interface SseEvent {
  /** `event:` field; "message" when the event named none. */
  event: string;
  data: string;
  /** The last event id in force when this event was dispatched (what `Last-Event-ID` resends). */
  lastEventId: string;
}

/**
 * The event-stream parser of the WHATWG HTML standard (§9.2.6), fed decoded text in chunks of any
 * size: lines end with CR, LF or CRLF (a CRLF split across two chunks counts once), a field's name
 * ends at the first colon and one space after it is dropped, `data` lines are joined with LF, a
 * blank line dispatches, comments (`:` first) are ignored, and an `id` with NUL is ignored. What
 * is pending when the stream ends is discarded, as the standard says.
 */
export class SseParser {
  /** The id to send as `Last-Event-ID` on reconnecting ("" before any). */
  lastEventId = "";
  /** The reconnection delay the server asked for with `retry:`, in ms. */
  retryMs: number | undefined;
  private buffer = "";
  private skipLeadingLf = false;
  private started = false;
  private data: string[] = [];
  private eventType = "";
  private pendingId = "";

  constructor(private readonly onEvent: (event: SseEvent) => void) {}

  feed(chunk: string): void {
    let text = chunk;
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.startsWith("\uFEFF")) text = text.slice(1);
    }
    if (this.skipLeadingLf && text.startsWith("\n")) text = text.slice(1);
    if (text.length > 0) this.skipLeadingLf = false;
    this.buffer += text;
    let start = 0;
    for (let end = this.nextLineEnd(start); end !== -1; end = this.nextLineEnd(start)) {
      this.line(this.buffer.slice(start, end));
      const crlf = this.buffer[end] === "\r" && this.buffer[end + 1] === "\n";
      if (this.buffer[end] === "\r" && end + 1 === this.buffer.length) this.skipLeadingLf = true;
      start = end + (crlf ? 2 : 1);
    }
    this.buffer = this.buffer.slice(start);
  }

  private nextLineEnd(from: number): number {
    for (let i = from; i < this.buffer.length; i++) {
      const char = this.buffer[i];
      if (char === "\n" || char === "\r") return i;
    }
    return -1;
  }

  private line(line: string): void {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const name = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    this.field(name, value);
  }

  private field(name: string, value: string): void {
    if (name === "event") this.eventType = value;
    else if (name === "data") this.data.push(value);
    else if (name === "id" && !value.includes("\0")) this.pendingId = value;
    else if (name === "retry" && /^\d+$/.test(value)) this.retryMs = Number(value);
  }

  private dispatch(): void {
    this.lastEventId = this.pendingId;
    const data = this.data;
    const event = this.eventType || "message";
    this.data = [];
    this.eventType = "";
    if (data.length === 0) return;
    this.onEvent({ event, data: data.join("\n"), lastEventId: this.lastEventId });
  }
}
