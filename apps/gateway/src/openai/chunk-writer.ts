import {
  chatCompletionChunk,
  finishReasonOf,
  toolCallsOf,
  toOpenAiError,
  usageChunk,
  type ApiError,
  type ChatDelta,
  type ChatFinishReason,
  type CompletionIdentity,
  type MappedChatRequest,
  type StatusRecord,
} from "@chorus/contracts";
import type { Response } from "express";
import { ReplyEvents } from "./reply-events.js";

/**
 * A chat completion's stream: `chat.completion.chunk` events, then `[DONE]`; an error is `{"error": …}`.
 * With tools, whether the reply is a call is known only from the final record: the reply (its text,
 * or its calls as tool_calls deltas) is sent then, whole.
 */
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
    if (!this.mapped.request.tools) this.chunk({ content }, null);
  }

  protected closing(record: StatusRecord): void {
    if (this.mapped.request.tools) this.wholeReply(record);
    this.chunk({}, finishReasonOf(record));
    if (this.mapped.includeUsage) this.event(usageChunk(this.identity, record));
    this.event("[DONE]");
  }

  protected failure(error: ApiError): void {
    this.event(toOpenAiError(error));
  }

  private wholeReply(record: StatusRecord): void {
    const calls = toolCallsOf(record);
    if (calls) this.chunk({ tool_calls: calls.map((call, index) => ({ index, ...call })) }, null);
    else if (record.reply) this.chunk({ content: record.reply }, null);
  }

  private chunk(delta: ChatDelta, finish: ChatFinishReason | null): void {
    this.event(chatCompletionChunk(this.identity, delta, finish, this.mapped.includeUsage));
  }
}
