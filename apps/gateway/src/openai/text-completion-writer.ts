import {
  textCompletionOf,
  textFinishReasonOf,
  toOpenAiError,
  usageOf,
  type ApiError,
  type CompletionIdentity,
  type StatusRecord,
} from "@chorus/contracts";
import type { Response } from "express";
import { ReplyEvents } from "./reply-events.js";

/**
 * A text completion's stream: `text_completion` objects, each with a piece of the text, the last with
 * its finish_reason, then (with include_usage) one without choices holding the usage, then `[DONE]`.
 */
export class TextCompletionWriter extends ReplyEvents {
  constructor(
    res: Response,
    private readonly identity: CompletionIdentity,
    private readonly includeUsage: boolean,
  ) {
    super(res);
  }

  protected opening(): void {
    // OpenAI's first chunk already carries text: there is no role to announce.
  }

  protected delta(text: string): void {
    this.piece(text, null);
  }

  protected closing(record: StatusRecord): void {
    this.piece("", textFinishReasonOf(record));
    if (this.includeUsage) this.event(textCompletionOf(this.identity, null, usageOf(record)));
    this.event("[DONE]");
  }

  protected failure(error: ApiError): void {
    this.event(toOpenAiError(error));
  }

  private piece(text: string, finish: "stop" | "length" | null): void {
    const usage = this.includeUsage ? null : undefined;
    this.event(textCompletionOf(this.identity, { text, finish_reason: finish }, usage));
  }
}
