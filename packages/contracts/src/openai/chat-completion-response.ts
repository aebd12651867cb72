import type { StatusRecord } from "../status-record.js";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatDelta,
  ChatFinishReason,
  ChatToolCall,
  CompletionUsage,
} from "./openai-shapes.js";

/** What every object of one completion shares: its id (naming the request), model and creation time. */
export interface CompletionIdentity {
  requestId: string;
  model: string;
  /** Unix seconds: when the request was accepted. */
  created: number;
}

/** `chatcmpl-<request id>`: the client can also follow the request under GET /api/v2/status/{id}. */
export const completionId = (requestId: string): string => `chatcmpl-${requestId}`;

/** The usage of a completed record; cached tokens are part of the prompt tokens, as OpenAI counts them. */
export function usageOf(record: StatusRecord): CompletionUsage {
  const prompt = record.promptTokens ?? 0;
  const completion = record.tokens ?? 0;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: record.cachedTokens ?? 0 },
  };
}

/**
 * What the worker recorded of why the reply ended (a record written before workers recorded it says
 * nothing, and reads as `stop`).
 */
export function finishReasonOf(record: StatusRecord): ChatFinishReason {
  if (record.toolCalls?.length) return "tool_calls";
  return record.finishReason === "length" ? "length" : "stop";
}

/** The calls a completed record holds, as OpenAI writes them (none: undefined). */
export function toolCallsOf(record: StatusRecord): ChatToolCall[] | undefined {
  if (!record.toolCalls?.length) return undefined;
  return record.toolCalls.map(({ id, name, arguments: args }) => ({
    id,
    type: "function",
    function: { name, arguments: args },
  }));
}

/** The assistant's message: its text, or (content null) the calls it made. */
function messageOf(record: StatusRecord): ChatCompletion["choices"][0]["message"] {
  const calls = toolCallsOf(record);
  if (calls) return { role: "assistant", content: null, refusal: null, tool_calls: calls };
  return { role: "assistant", content: record.reply ?? "", refusal: null };
}

/** The answer of a request without `stream`, from its completed record. */
export function chatCompletionOf(identity: CompletionIdentity, record: StatusRecord): ChatCompletion {
  return {
    id: completionId(identity.requestId),
    object: "chat.completion",
    created: identity.created,
    model: identity.model,
    choices: [
      {
        index: 0,
        message: messageOf(record),
        finish_reason: finishReasonOf(record),
        logprobs: null,
      },
    ],
    usage: usageOf(record),
  };
}

/**
 * One chunk of a streamed completion: a delta, or (with `finishReason`) the last chunk of the choice.
 * With include_usage every chunk carries `usage: null`, as OpenAI's do, but the usage chunk.
 */
export function chatCompletionChunk(
  identity: CompletionIdentity,
  delta: ChatDelta,
  finishReason: ChatFinishReason | null,
  includeUsage: boolean,
): ChatCompletionChunk {
  const chunk: ChatCompletionChunk = {
    id: completionId(identity.requestId),
    object: "chat.completion.chunk",
    created: identity.created,
    model: identity.model,
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
  };
  return includeUsage ? { ...chunk, usage: null } : chunk;
}

/** The chunk after the last choice chunk when stream_options.include_usage: no choices, the usage. */
export function usageChunk(identity: CompletionIdentity, record: StatusRecord): ChatCompletionChunk {
  return {
    id: completionId(identity.requestId),
    object: "chat.completion.chunk",
    created: identity.created,
    model: identity.model,
    choices: [],
    usage: usageOf(record),
  };
}
