import { ApiError, type ReplyDelta, type StatusRecord } from "@chorus/contracts";
import type { StoredStatus } from "@chorus/platform/scheduler";
import type { Response } from "express";
import { ReplyDiverged, StreamedReply } from "./streamed-reply.js";

/**
 * One streamed reply's Server-Sent Events, in the shape of one API (chat completion chunks,
 * Responses events). The text sent is what StreamedReply allows: text that extends what the client
 * has, from the attempt it follows; a reply that changed under it ends the stream with an error.
 * A subclass writes the events; this class decides what they carry and when the stream ends.
 */
export abstract class ReplyEvents {
  private readonly reply = new StreamedReply();
  /** Between the opening events and the end: content may be sent. */
  private open = false;
  /** The last event was sent (the finish or an error): nothing more may follow. */
  ended = false;

  constructor(protected readonly res: Response) {}

  start(): void {
    this.opening();
    this.open = true;
  }

  /** A worker's delta, while the client reads (one skipped leaves a gap, which the record fills). */
  append(delta: ReplyDelta): void {
    if (this.reading()) this.content(() => this.reply.delta(delta.attempt ?? "", delta.at, delta.text));
  }

  /** The record of a job still running: its partial reply fills what deltas left out. */
  snapshot(stored: StoredStatus): void {
    const text = stored.record.partialReply;
    if (text !== undefined && this.reading())
      this.content(() => this.reply.snapshot(stored.partialAttempt ?? "", text));
  }

  /** The rest of the reply, then the closing events; the response ends. */
  finish(record: StatusRecord): void {
    this.content(() => this.reply.final(record.reply ?? ""));
    if (this.ended) return;
    this.end(() => this.closing(record));
  }

  /**
   * A failure after the headers: the API's error event (the SDKs raise it); the response ends.
   * `record` is the job's own failed record, when the failure is the job's.
   */
  fail(error: ApiError, record?: StatusRecord): void {
    if (!this.ended) this.end(() => this.failure(error, record));
  }

  /** The text the client has so far. */
  protected get text(): string {
    return this.reply.text;
  }

  protected abstract opening(): void;
  protected abstract delta(content: string): void;
  protected abstract closing(record: StatusRecord): void;
  protected abstract failure(error: ApiError, record?: StatusRecord): void;

  protected event(data: object | string, name?: string): void {
    const line = `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
    this.res.write(name ? `event: ${name}\n${line}` : line);
  }

  private end(last: () => void): void {
    this.open = false;
    this.ended = true;
    last();
    this.res.end();
  }

  private reading(): boolean {
    return this.open && !this.res.closed && !this.res.writableNeedDrain;
  }

  private content(next: () => string): void {
    try {
      const content = next();
      if (content) this.delta(content);
    } catch (error) {
      if (!(error instanceof ReplyDiverged)) throw error;
      this.fail(new ApiError("INTERNAL_ERROR", error.message));
    }
  }
}
