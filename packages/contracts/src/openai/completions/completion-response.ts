import type { StatusRecord } from "../../status-record.js";
import { finishReasonOf, usageOf, type CompletionIdentity } from "../chat-completion-response.js";
import type { CompletionUsage } from "../openai-shapes.js";

/** OpenAI's legacy completion object (`text_completion`), whole or as one streamed chunk. */
export interface TextCompletion {
  /** `cmpl-<request id>`: the same request under GET /api/v2/status/{id}. */
  id: string;
  object: "text_completion";
  created: number;
  model: string;
  choices: { index: 0; text: string; finish_reason: "stop" | "length" | null; logprobs: null }[];
  usage?: CompletionUsage | null;
}

export const textCompletionId = (requestId: string): string => `cmpl-${requestId}`;

/** One object of a text completion: the whole answer, a streamed piece, or (no choices) the usage chunk. */
export function textCompletionOf(
  identity: CompletionIdentity,
  choice: { text: string; finish_reason: "stop" | "length" | null } | null,
  usage?: CompletionUsage | null,
): TextCompletion {
  return {
    id: textCompletionId(identity.requestId),
    object: "text_completion",
    created: identity.created,
    model: identity.model,
    choices: choice ? [{ index: 0, ...choice, logprobs: null }] : [],
    ...(usage !== undefined ? { usage } : {}),
  };
}

/** Why a raw prompt's reply ended: it has no tool calls, so `stop` or `length`. */
export const textFinishReasonOf = (record: StatusRecord): "stop" | "length" =>
  finishReasonOf(record) === "length" ? "length" : "stop";

/** The answer of a request without `stream`, from its completed record. */
export function textCompletionAnswer(identity: CompletionIdentity, record: StatusRecord): TextCompletion {
  return textCompletionOf(
    identity,
    { text: record.reply ?? "", finish_reason: textFinishReasonOf(record) },
    usageOf(record),
  );
}
