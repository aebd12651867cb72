import {
  ApiError,
  chatCompletionChunk,
  finishReasonOf,
  toOpenAiError,
  usageChunk,
  type CompletionIdentity,
  type MappedChatRequest,
  type ReplyDelta,
  type StatusRecord,
} from "@chorus/contracts";
import type { StoredStatus } from "@chorus/platform/scheduler";
import type { Response } from "express";
import { ReplyDiverged, StreamedReply } from "./streamed-reply.js";

/**
 * Writes one completion's Server-Sent Events. The content sent is what StreamedReply allows: text
 * that extends what the client has, from the attempt it follows; a reply that changed under it ends
 * the stream with an error event instead of a splice.
 */
export class ChunkWriter {
  private readonly reply = new StreamedReply();
  /** Between the role chunk and the end: content may be sent. */
  private open = false;
  /** The last event was sent (the finish or an error): nothing more may follow. */
  ended = false;

  constructor(
    private readonly res: Response,
    private readonly identity: CompletionIdentity,
    private readonly mapped: MappedChatRequest,
  ) {}

  start(): void {
    this.event(chatCompletionChunk(this.identity, { role: "assistant", content: "" }, null, this.mapped.includeUsage));
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

  /** The rest of the reply, the choice's last chunk, the usage chunk when asked for, then [DONE]. */
  finish(record: StatusRecord): void {
    this.content(() => this.reply.final(record.reply ?? ""));
    if (this.ended) return;
    this.open = false;
    this.ended = true;
    const last = chatCompletionChunk(this.identity, {}, finishReasonOf(record), this.mapped.includeUsage);
    this.event(last);
    if (this.mapped.includeUsage) this.event(usageChunk(this.identity, record));
    this.event("[DONE]");
    this.res.end();
  }

  /** A failure after the headers: an `error` event, which the official SDKs throw as an APIError; no [DONE]. */
  fail(error: ApiError): void {
    if (this.ended) return;
    this.open = false;
    this.ended = true;
    this.event(toOpenAiError(error));
    this.res.end();
  }

  private reading(): boolean {
    return this.open && !this.res.closed && !this.res.writableNeedDrain;
  }

  private content(next: () => string): void {
    try {
      const content = next();
      if (content) this.event(chatCompletionChunk(this.identity, { content }, null, this.mapped.includeUsage));
    } catch (error) {
      if (!(error instanceof ReplyDiverged)) throw error;
      this.fail(new ApiError("INTERNAL_ERROR", error.message));
    }
  }

  private event(data: object | string): void {
    this.res.write(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
  }
}
