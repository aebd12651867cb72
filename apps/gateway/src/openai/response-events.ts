import {
  functionCallItem,
  functionCallItemId,
  outputMessage,
  outputMessageId,
  outputText,
  responseObjectOf,
  type ApiError,
  type ResponseIdentity,
  type StatusRecord,
  type ToolCall,
} from "@chorus/contracts";
import type { Response } from "express";
import { ReplyEvents } from "./reply-events.js";

/** The events before the output: created, in_progress. */
const RESPONSE_EVENTS = 2;
/** The events before the text: the response's, then the message item and its text part. */
const OPENING_EVENTS = RESPONSE_EVENTS + 2;
/** A function call's events: its item added, its arguments (one delta, then done), its item done. */
const CALL_EVENTS = 4;

/**
 * A response's stream in the Responses API's events. Sequence numbers follow the output, not the
 * order of sending: a text delta's number is OPENING_EVENTS + the length of the text once it is
 * added, and the closing events come after the whole text's. So a client that lost its connection
 * and resumes with `starting_after` gets, from the record, exactly the events it had not received.
 * The message item is opened with its first text (or at the end): a reply to a request with tools
 * is known to be a message or function calls only once it is final (no text is streamed before),
 * and calls are sent as `function_call` items after the response's opening events.
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

  /** The message item and its text part are open (their events sent or skipped as already had). */
  private messageOpen = false;

  protected opening(): void {
    const response = this.response({ status: "processing" });
    this.emit(0, { type: "response.created", response });
    this.emit(1, { type: "response.in_progress", response });
  }

  protected delta(content: string): void {
    this.openMessage();
    const end = OPENING_EVENTS + this.text.length;
    // Resumed: what the client already has (up to `after`) is cut off this piece.
    const skip = Math.max(0, this.after - (end - content.length));
    if (skip < content.length)
      this.emit(end, { type: "response.output_text.delta", ...this.part(), delta: content.slice(skip), logprobs: [] });
  }

  protected closing(record: StatusRecord): void {
    const response = this.response(record);
    const calls = response.status === "completed" ? (record.toolCalls ?? []) : [];
    const base = calls.length ? RESPONSE_EVENTS + CALL_EVENTS * calls.length - 1 : this.closeMessage(response);
    calls.forEach((call, index) => this.sendCall(call, index));
    const done = response.status === "incomplete" ? "response.incomplete" : "response.completed";
    this.emit(base + 1, { type: done, response });
  }

  private openMessage(): void {
    if (this.messageOpen) return;
    this.messageOpen = true;
    const item = outputMessage(this.identity.requestId, "", "in_progress");
    this.emit(RESPONSE_EVENTS, { type: "response.output_item.added", output_index: 0, item });
    this.emit(RESPONSE_EVENTS + 1, { type: "response.content_part.added", ...this.part(), part: outputText("") });
  }

  /** The message's closing events; the number of the last. */
  private closeMessage(response: ReturnType<ResponseEvents["response"]>): number {
    this.openMessage();
    const base = OPENING_EVENTS + this.text.length;
    const item = response.output[0] ?? outputMessage(this.identity.requestId, this.text, "completed");
    this.emit(base + 1, { type: "response.output_text.done", ...this.part(), text: this.text, logprobs: [] });
    this.emit(base + 2, { type: "response.content_part.done", ...this.part(), part: outputText(this.text) });
    this.emit(base + 3, { type: "response.output_item.done", output_index: 0, item });
    return base + 3;
  }

  /** One call as OpenAI streams it: the item, its arguments (whole: known once the reply is final), the item done. */
  private sendCall(call: ToolCall, index: number): void {
    const first = RESPONSE_EVENTS + CALL_EVENTS * index;
    const where = { item_id: functionCallItemId(call), output_index: index };
    const added = functionCallItem(call, "in_progress");
    this.emit(first, { type: "response.output_item.added", output_index: index, item: added });
    this.emit(first + 1, { type: "response.function_call_arguments.delta", ...where, delta: call.arguments });
    this.emit(first + 2, {
      type: "response.function_call_arguments.done",
      ...where,
      name: call.name,
      arguments: call.arguments,
    });
    const item = functionCallItem(call, "completed");
    this.emit(first + 3, { type: "response.output_item.done", output_index: index, item });
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
