/**
 * The wire shapes of the OpenAI-compatible front door (`/v1`), as the official SDKs send
 * and read them: only the fields this service reads or writes.
 */

export type ChatRole = "system" | "developer" | "user" | "assistant" | "tool" | "function";

export interface ChatTextPart {
  type: "text";
  text: string;
}

/** An assistant's refusal, as a part of its content. */
export interface ChatRefusalPart {
  type: "refusal";
  refusal: string;
}

/** A message after the schema (chat-message.schema.ts): every field any role may carry. */
export interface ChatMessageParam {
  role: ChatRole;
  content?: string | (ChatTextPart | ChatRefusalPart)[] | null;
  name?: string;
  refusal?: string | null;
  annotations?: unknown[] | null;
  audio?: object | null;
  tool_calls?: object[] | null;
  function_call?: object | null;
  tool_call_id?: string;
}

/** A request body after the schema (chat-completion-request.schema.ts): `model` and `messages` present. */
export interface ChatCompletionRequest {
  model: string;
  messages: ChatMessageParam[];
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  seed?: number | null;
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean | null } | null;
  stop?: string | string[] | null;
  [refusedOrIgnored: string]: unknown;
}

export type ChatFinishReason = "stop" | "length" | "tool_calls";

/** A call the model made, as OpenAI writes it in a message. */
export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** A call in a streamed delta: its place in the message's list, then the call. */
export interface ChatToolCallDelta extends ChatToolCall {
  index: number;
}

/** What a chunk's delta may carry. */
export interface ChatDelta {
  role?: "assistant";
  content?: string | null;
  tool_calls?: ChatToolCallDelta[];
}

export interface CompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
}

export interface ChatCompletion {
  /** `chatcmpl-<request id>`: the same request under GET /api/v2/status/{id}. */
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: [
    {
      index: 0;
      /** `content` is null when the model called tools (`tool_calls`) instead of replying. */
      message: { role: "assistant"; content: string | null; refusal: null; tool_calls?: ChatToolCall[] };
      finish_reason: ChatFinishReason;
      logprobs: null;
    },
  ];
  usage: CompletionUsage;
}

export interface ChatCompletionChunk {
  id: string;
  object: "chat.completion.chunk";
  created: number;
  model: string;
  /** Empty in the usage chunk (stream_options.include_usage). */
  choices: {
    index: 0;
    delta: ChatDelta;
    finish_reason: ChatFinishReason | null;
    logprobs: null;
  }[];
  /** Only in the usage chunk, and there not null. */
  usage?: CompletionUsage | null;
}

export interface OpenAiModel {
  id: string;
  object: "model";
  /** Unix seconds. */
  created: number;
  owned_by: string;
  /** Extension: what the model does here: `chat` (the /v1 text endpoints) or `speech` (/v1/audio/speech). */
  chorus_kind: "chat" | "speech";
}

export interface OpenAiModelList {
  object: "list";
  data: OpenAiModel[];
}

/** OpenAI's error envelope: what the SDKs read into their typed errors. */
export interface OpenAiErrorEnvelope {
  error: {
    message: string;
    type: string;
    param: string | null;
    code: string | null;
    /** Only for a batch's input with bad lines: every bad line (the first is the one named above). */
    errors?: unknown[];
  };
}

/** A page of a list endpoint (files, batches), as OpenAI answers it. */
export interface OpenAiList<Item extends { id: string }> {
  object: "list";
  data: Item[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

export function openAiList<Item extends { id: string }>(data: Item[], hasMore: boolean): OpenAiList<Item> {
  return { object: "list", data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: hasMore };
}
