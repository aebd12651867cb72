import {
  outputMessage,
  outputMessageId,
  outputText,
  responseObjectOf,
  type ApiError,
  type ResponseIdentity,
  type StatusRecord,
} from "@chorus/contracts";
import type { Response } from "express";
import { ReplyEvents } from "./reply-events.js";

/** The events before the text: created, in_progress, the message item, its text part. */
const OPENING_EVENTS = 4;

/**
 * A response's stream in the Responses API's events. Sequence numbers follow the text, not the
 * order of sending: a text delta's number is OPENING_EVENTS + the length of the text once it is
 * added, and the closing events come after the whole text's. So a client that lost its connection
 * and resumes with `starting_after` gets, from the record, exactly the events it had not received.
 */
export class ResponseEvents extends ReplyEvents {
  constructor(
    res: Response,
    private readonly identity: ResponseIdentity,
    /** `starting_after`: events up to this number are not sent again (-1: send them all). */
    private readonly after = -1,
  ) {
    super(res);
  }

  protected opening(): void {
    const { requestId } = this.identity;
    const response = this.response({ status: "processing" });
    this.emit(0, { type: "response.created", response });
    this.emit(1, { type: "response.in_progress", response });
    this.emit(2, {
      type: "response.output_item.added",
      output_index: 0,
      item: outputMessage(requestId, "", "in_progress"),
    });
    this.emit(3, { type: "response.content_part.added", ...this.part(), part: outputText("") });
  }

  protected delta(content: string): void {
    const end = OPENING_EVENTS + this.text.length;
    // Resumed: what the client already has (up to `after`) is cut off this piece.
    const skip = Math.max(0, this.after - (end - content.length));
    if (skip < content.length)
      this.emit(end, { type: "response.output_text.delta", ...this.part(), delta: content.slice(skip), logprobs: [] });
  }

  protected closing(record: StatusRecord): void {
    const base = OPENING_EVENTS + this.text.length;
    const response = this.response(record);
    const item = response.output[0] ?? outputMessage(this.identity.requestId, this.text, "completed");
    this.emit(base + 1, { type: "response.output_text.done", ...this.part(), text: this.text, logprobs: [] });
    this.emit(base + 2, { type: "response.content_part.done", ...this.part(), part: outputText(this.text) });
    this.emit(base + 3, { type: "response.output_item.done", output_index: 0, item });
    const done = response.status === "incomplete" ? "response.incomplete" : "response.completed";
    this.emit(base + 4, { type: done, response });
  }

  /**
   * A job that failed or was cancelled ends with `response.failed` (the response as it stands); a
   * stream that cannot go on (its reply changed, Redis, shutdown) with an `error` event, which the
   * SDKs raise.
   */
  protected failure(error: ApiError, record?: StatusRecord): void {
    const sequence = OPENING_EVENTS + this.text.length + 1;
    if (record) return this.emit(sequence, { type: "response.failed", response: this.response(record) });
    const detail = { code: error.code.toLowerCase(), message: error.message, param: null };
    const event = { type: "error", ...detail, sequence_number: sequence, error: { type: "server_error", ...detail } };
    this.event(event, "error");
  }

  private response(record: StatusRecord) {
    return responseObjectOf(this.identity, record);
  }

  private part() {
    return { item_id: outputMessageId(this.identity.requestId), output_index: 0, content_index: 0 };
  }

  private emit(sequence: number, event: { type: string; [field: string]: unknown }): void {
    if (sequence > this.after) this.event({ ...event, sequence_number: sequence }, event.type);
  }
}
