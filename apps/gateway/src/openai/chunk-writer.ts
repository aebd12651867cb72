import {
  chatCompletionChunk,
  finishReasonOf,
  toOpenAiError,
  usageChunk,
  type ApiError,
  type CompletionIdentity,
  type MappedChatRequest,
  type StatusRecord,
} from "@chorus/contracts";
import type { Response } from "express";
import { ReplyEvents } from "./reply-events.js";

/** A chat completion's stream: `chat.completion.chunk` events, then `[DONE]`; an error is `{"error": …}`. */
export class ChunkWriter extends ReplyEvents {
  constructor(
    res: Response,
    private readonly identity: CompletionIdentity,
    private readonly mapped: MappedChatRequest,
  ) {
    super(res);
  }

  protected opening(): void {
    this.chunk({ role: "assistant", content: "" }, null);
  }

  protected delta(content: string): void {
    this.chunk({ content }, null);
  }

  protected closing(record: StatusRecord): void {
    this.chunk({}, finishReasonOf(record));
    if (this.mapped.includeUsage) this.event(usageChunk(this.identity, record));
    this.event("[DONE]");
  }

  protected failure(error: ApiError): void {
    this.event(toOpenAiError(error));
  }

  private chunk(delta: { role?: "assistant"; content?: string }, finish: "stop" | "length" | null): void {
    this.event(chatCompletionChunk(this.identity, delta, finish, this.mapped.includeUsage));
  }
}
