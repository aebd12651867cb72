import type { StatusRecord } from "../../status-record.js";
import type { ToolCall } from "../../text/tools.js";
import type { ResponseEcho } from "./map-responses-request.js";

/** `resp_<request id>`: the same request under GET /api/v2/status/{id}. */
export const responseId = (requestId: string): string => `resp_${requestId}`;
/** The one output message's id. */
export const outputMessageId = (requestId: string): string => `msg_${requestId}`;

/** The request id a response id names, or null when it is not one of ours. */
export function requestIdOfResponse(id: string): string | null {
  return /^resp_([0-9a-f-]{36})$/.exec(id)?.[1] ?? null;
}

export type ResponseStatus = "queued" | "in_progress" | "completed" | "incomplete" | "failed" | "cancelled";

/** What a response is about: its request, model and creation time, and what its create call asked. */
export interface ResponseIdentity {
  requestId: string;
  model: string;
  /** Unix seconds. */
  createdAt: number;
  /** Unknown (null fields) when the response is read back later: the record keeps none of it. */
  echo: ResponseEcho | null;
}

/** A record's state in the Responses API's terms. */
export function responseStatusOf(record: StatusRecord): ResponseStatus {
  if (record.status === "processing") return record.queuePosition !== undefined ? "queued" : "in_progress";
  if (record.status === "completed") return record.finishReason === "length" ? "incomplete" : "completed";
  return record.errorCode === "cancelled" ? "cancelled" : "failed";
}

export function outputMessage(requestId: string, text: string, status: "in_progress" | "completed" | "incomplete") {
  return {
    type: "message" as const,
    id: outputMessageId(requestId),
    status,
    role: "assistant" as const,
    content: text || status !== "in_progress" ? [outputText(text)] : [],
  };
}

/** A function call's output item id: `fc_` and its call's id (`call_…`), so it is the same at every read. */
export const functionCallItemId = (call: Pick<ToolCall, "id">): string => `fc_${call.id.replace(/^call_/, "")}`;

/** A call the model made, as a `function_call` output item (`arguments` empty while it is being sent). */
export function functionCallItem(call: ToolCall, status: "in_progress" | "completed") {
  return {
    type: "function_call" as const,
    id: functionCallItemId(call),
    call_id: call.id,
    name: call.name,
    arguments: status === "completed" ? call.arguments : "",
    status,
  };
}

export const outputText = (text: string) => ({ type: "output_text" as const, text, annotations: [], logprobs: [] });

function outputOf(requestId: string, record: StatusRecord, status: ResponseStatus) {
  if (status === "completed" && record.toolCalls?.length)
    return record.toolCalls.map((call) => functionCallItem(call, "completed"));
  if (status === "completed" || status === "incomplete") return [outputMessage(requestId, record.reply ?? "", status)];
  if (status === "in_progress" && record.partialReply) return [outputMessage(requestId, record.partialReply, status)];
  return [];
}

function usageOf(record: StatusRecord) {
  if (record.status !== "completed") return null;
  const input = record.promptTokens ?? 0;
  const output = record.tokens ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: record.cachedTokens ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + output,
  };
}

function errorOf(record: StatusRecord, status: ResponseStatus) {
  if (status !== "failed") return null;
  const invalid = record.errorCode === "context_length_exceeded" || record.errorCode === "invalid_request";
  return { code: invalid ? "invalid_prompt" : "server_error", message: record.error ?? "the response failed" };
}

/** The Response object of a request, as its record stands. */
export function responseObjectOf(identity: ResponseIdentity, record: StatusRecord) {
  const status = responseStatusOf(record);
  const echo = identity.echo;
  return {
    id: responseId(identity.requestId),
    object: "response" as const,
    created_at: identity.createdAt,
    status,
    background: echo?.background ?? null,
    error: errorOf(record, status),
    incomplete_details: status === "incomplete" ? { reason: "max_output_tokens" } : null,
    instructions: echo?.instructions ?? null,
    max_output_tokens: echo?.max_output_tokens ?? null,
    metadata: echo?.metadata ?? {},
    model: identity.model,
    output: outputOf(identity.requestId, record, status),
    parallel_tool_calls: false,
    temperature: echo?.temperature ?? null,
    text: { format: echo?.format ?? { type: "text" } },
    tool_choice: echo?.toolChoice ?? "none",
    tools: echo?.tools ?? [],
    top_p: echo?.top_p ?? null,
    truncation: "disabled",
    usage: usageOf(record),
  };
}

export type ResponseObject = ReturnType<typeof responseObjectOf>;
