import { ApiError } from "../../errors.js";
import { compileValidator } from "../../validation/validator.js";
import { DEFAULT_CHAT_LIMITS, mapChatCompletionRequest, type MappedChatRequest } from "../map-chat-request.js";
import type { ChatMessageParam } from "../openai-shapes.js";
import { responseCreateSchema } from "./responses-request.schema.js";

type TextContent = string | { type: string; text: string }[];

interface InputMessage {
  type?: "message";
  role: ChatMessageParam["role"];
  content: TextContent;
}

/** A call the model made, echoed back from an earlier response's output. */
interface FunctionCallItem {
  type: "function_call";
  call_id: string;
  name: string;
  arguments: string;
}

/** What the client's function returned for a call. */
interface FunctionCallOutputItem {
  type: "function_call_output";
  call_id: string;
  output: TextContent;
}

type InputItem = InputMessage | FunctionCallItem | FunctionCallOutputItem;

/** A request body after the schema. */
export interface ResponseCreateRequest {
  model: string;
  input: string | InputItem[];
  instructions?: string | null;
  max_output_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  stream?: boolean | null;
  background?: boolean | null;
  text?: { format?: unknown; verbosity?: unknown } | null;
  metadata?: unknown;
  [other: string]: unknown;
}

/** What a response asks of the text job (as a chat completion would), and how it is answered. */
export interface MappedResponseRequest {
  chat: MappedChatRequest;
  /** Answered at once, the job running without the client (poll GET /v1/responses/{id}). */
  background: boolean;
  stream: boolean;
  /** What the response object echoes back. */
  echo: ResponseEcho;
}

export interface ResponseEcho {
  instructions: string | null;
  max_output_tokens: number | null;
  temperature: number | null;
  top_p: number | null;
  metadata: Record<string, string>;
  background: boolean;
  /** `text.format` as sent (`{type: "text"}` when none was). */
  format: unknown;
  /** `tools` and `tool_choice` as sent (`[]` and `"none"` when none were). */
  tools: unknown[];
  toolChoice: unknown;
}

const validateResponseCreate = compileValidator<ResponseCreateRequest>(responseCreateSchema);

/** Fields whose every value would ask for something this service does not do: refused, saying why. */
const REFUSED: Record<string, string> = {
  previous_response_id:
    "previous_response_id is not supported: responses are not chained here; send the whole conversation as input",
  conversation: "conversation is not supported: send the whole conversation as input",
  prompt: "prompt (stored prompt templates) is not supported",
  reasoning: "reasoning is not supported: the models here do not reason in a separate phase",
};

function refuseUnsupported(body: ResponseCreateRequest): void {
  for (const [field, why] of Object.entries(REFUSED))
    if (body[field] !== undefined && body[field] !== null) throw ApiError.invalidParameter(field, "null", why);
  const top = body.top_logprobs;
  if (top !== undefined && top !== null && top !== 0)
    throw ApiError.invalidParameter("top_logprobs", "0", "top_logprobs is not supported (only 0)");
}

const textOf = (content: TextContent): string =>
  typeof content === "string" ? content : content.map((part) => part.text).join("\n");

/**
 * One input item as one chat message (so a 400 about messages[i] names input[i]): a function call
 * is the assistant's tool call, its output the tool's result.
 */
function messageOf(item: InputItem): ChatMessageParam {
  if (item.type === "function_call") {
    const call = { id: item.call_id, type: "function", function: { name: item.name, arguments: item.arguments } };
    return { role: "assistant", content: null, tool_calls: [call] };
  }
  if (item.type === "function_call_output")
    return { role: "tool", tool_call_id: item.call_id, content: textOf(item.output) };
  return { role: item.role, content: textOf(item.content) };
}

/** Each call output answers a call the input holds (as OpenAI requires): a result of nothing asked is a mistake. */
function refuseUnansweredOutputs(items: InputItem[]): void {
  const calls = new Set(items.flatMap((item) => (item.type === "function_call" ? [item.call_id] : [])));
  items.forEach((item, at) => {
    if (item.type === "function_call_output" && !calls.has(item.call_id))
      throw ApiError.invalidParameter(
        `input[${at}].call_id`,
        "string",
        `no function_call item in input has call_id '${item.call_id}': send the call before its output`,
      );
  });
}

/** The input (and instructions, first) as chat messages. */
function messagesOf(body: ResponseCreateRequest): ChatMessageParam[] {
  const items: InputItem[] = typeof body.input === "string" ? [{ role: "user", content: body.input }] : body.input;
  refuseUnansweredOutputs(items);
  const conversation = items.map(messageOf);
  return body.instructions ? [{ role: "system", content: body.instructions }, ...conversation] : conversation;
}

/** The chat mapping's parameter names, said in the Responses API's terms. */
function inResponseTerms(error: unknown, instructed: boolean): never {
  if (!(error instanceof ApiError) || typeof error.details?.parameter !== "string") throw error;
  const parameter = error.details.parameter
    .replace(/^messages\[(\d+)\]/, (_, at: string) =>
      instructed && at === "0" ? "instructions" : `input[${Number(at) - (instructed ? 1 : 0)}]`,
    )
    .replace(/^messages\b/, "input")
    .replace(/^max_completion_tokens\b/, "max_output_tokens")
    .replace(/^response_format\b/, "text.format")
    .replace(/^(tools\[\d+\])\.function\b/, "$1")
    .replace(/^tool_choice\.function\b/, "tool_choice");
  throw new ApiError(error.code, error.message, { ...error.details, parameter }, error.retryAfterSeconds);
}

const INPUT_ITEM_TYPES: unknown[] = ["message", "function_call", "function_call_output"];

/** Input items other than messages and calls (images, files, reasoning…) are said to be unsupported as such. */
function refuseOtherItems(body: unknown): void {
  const input = (body as { input?: unknown } | null)?.input;
  if (!Array.isArray(input)) return;
  const at = input.findIndex(
    (item: { type?: unknown } | null) => item?.type !== undefined && !INPUT_ITEM_TYPES.includes(item.type),
  );
  if (at >= 0)
    throw ApiError.invalidParameter(
      `input[${at}].type`,
      "string",
      `input items of type '${String((input[at] as { type: unknown }).type)}' are not supported: send messages, function calls and their outputs`,
    );
}

/** Built-in tools (web search, file search, code interpreter…) are not offered: only the client's functions. */
function refuseBuiltInTools(body: unknown): void {
  const { tools, tool_choice: choice } = (body ?? {}) as { tools?: unknown; tool_choice?: unknown };
  if (Array.isArray(tools))
    tools.forEach((tool: { type?: unknown } | null, at) => {
      if (isObject(tool) && tool.type !== "function")
        throw ApiError.invalidParameter(
          `tools[${at}].type`,
          "string",
          `tools of type '${String(tool.type)}' are not supported here: only function tools (type 'function')`,
        );
    });
  if (isObject(choice) && choice.type !== "function")
    throw ApiError.invalidParameter(
      "tool_choice",
      "string or object",
      "tool_choice must be 'none', 'auto', 'required' or {type: 'function', name}",
    );
}

/** Validates a Responses API body (400s name the field in its terms) and maps it onto the text job. */
export function mapResponseCreateRequest(body: unknown, limits = DEFAULT_CHAT_LIMITS): MappedResponseRequest {
  refuseOtherItems(body);
  refuseBuiltInTools(body);
  const request = validateResponseCreate(body);
  refuseUnsupported(request);
  const chatBody = {
    model: request.model,
    messages: messagesOf(request),
    max_completion_tokens: request.max_output_tokens ?? null,
    temperature: request.temperature ?? null,
    top_p: request.top_p ?? null,
    ...(request.text?.format !== undefined && { response_format: chatFormatOf(request.text.format) }),
    ...(request.tools !== undefined && { tools: chatToolsOf(request.tools) }),
    ...(request.tool_choice !== undefined && { tool_choice: chatToolChoiceOf(request.tool_choice) }),
  };
  let chat: MappedChatRequest;
  try {
    chat = mapChatCompletionRequest(chatBody, limits);
  } catch (error) {
    inResponseTerms(error, Boolean(request.instructions));
  }
  return { chat, background: request.background === true, stream: request.stream === true, echo: echoOf(request) };
}

type Loose = Record<string, unknown>;
const isObject = (value: unknown): value is Loose => typeof value === "object" && value !== null;

/** `{type: json_schema, name, schema, strict}` (Responses) is chat's `{type: json_schema, json_schema: {...}}`. */
function chatFormatOf(format: unknown): unknown {
  if (!isObject(format) || format.type !== "json_schema") return format;
  const { type, ...jsonSchema } = format;
  return { type, json_schema: jsonSchema };
}

/** A function tool is flat in the Responses API (`{type, name, parameters}`), nested in chat's. */
function chatToolsOf(tools: unknown): unknown {
  if (!Array.isArray(tools)) return tools;
  return tools.map((tool: unknown) => {
    if (!isObject(tool) || tool.type !== "function") return tool;
    const { type, ...fn } = tool;
    return { type, function: fn };
  });
}

function chatToolChoiceOf(choice: unknown): unknown {
  if (!isObject(choice) || choice.type !== "function") return choice;
  return { type: "function", function: { name: choice.name } };
}

function echoOf(request: ResponseCreateRequest): ResponseEcho {
  const metadata =
    typeof request.metadata === "object" && request.metadata !== null
      ? (request.metadata as Record<string, string>)
      : {};
  return {
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    temperature: request.temperature ?? null,
    top_p: request.top_p ?? null,
    metadata,
    background: request.background === true,
    format: request.text?.format ?? { type: "text" },
    tools: Array.isArray(request.tools) ? request.tools : [],
    toolChoice: request.tool_choice ?? (Array.isArray(request.tools) && request.tools.length ? "auto" : "none"),
  };
}
