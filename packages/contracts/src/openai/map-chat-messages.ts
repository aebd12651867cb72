import { ApiError } from "../errors.js";
import type { Message } from "../text/generation-request.js";
import type { ChatMessageParam, ChatRole } from "./openai-shapes.js";

/** The fields each role may carry besides `role`, as OpenAI's message types define them. */
const ROLE_FIELDS: Record<ChatRole, readonly string[]> = {
  system: ["content", "name"],
  developer: ["content", "name"],
  user: ["content", "name"],
  assistant: ["content", "name", "refusal", "annotations", "audio", "tool_calls", "function_call"],
  tool: ["content", "tool_call_id"],
  function: ["content", "name"],
};

/** Fields a role cannot go without (an assistant's content may be absent, as OpenAI allows). */
const REQUIRED_FIELDS: Partial<Record<ChatRole, readonly string[]>> = {
  system: ["content"],
  developer: ["content"],
  user: ["content"],
  tool: ["content", "tool_call_id"],
  function: ["content", "name"],
};

const refuse = (parameter: string, expected: string, why: string): never => {
  throw ApiError.invalidParameter(parameter, expected, why);
};

/**
 * Content parts other than text (images, audio, files) are said to be unsupported as such, before
 * the schema finds their type unknown.
 */
export function refuseNonTextParts(body: unknown): void {
  const messages = (body as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages)) return;
  messages.forEach((message: { content?: unknown } | null, at) => {
    const content = message?.content;
    if (!Array.isArray(content)) return;
    content.forEach((part: { type?: unknown } | null, index) => {
      const type = part?.type;
      if (typeof type === "string" && type !== "text" && type !== "refusal")
        refuse(
          `messages[${at}].content[${index}].type`,
          "string",
          `content parts of type '${type}' are not supported: the models here read text only`,
        );
    });
  });
}

/** Each field is one the message's role has, the required ones are there, and each part is whole. */
function checkFields(message: ChatMessageParam, at: number): void {
  const allowed = ROLE_FIELDS[message.role];
  for (const field of Object.keys(message))
    if (field !== "role" && !allowed.includes(field))
      refuse(`messages[${at}].${field}`, "absent", `a ${message.role} message has no field '${field}'`);
  for (const field of REQUIRED_FIELDS[message.role] ?? [])
    if (!(field in message))
      refuse(`messages[${at}].${field}`, "present", `a ${message.role} message needs '${field}'`);
  if (message.audio != null)
    refuse(`messages[${at}].audio`, "null", "audio is not supported here (only null): send the text as content");
  if (!Array.isArray(message.content)) return;
  message.content.forEach((part, index) => {
    const where = `messages[${at}].content[${index}]`;
    if (part.type === "text" && typeof (part as { text?: unknown }).text !== "string")
      refuse(`${where}.text`, "string", "a text part needs its text");
    if (part.type === "refusal" && (message.role !== "assistant" || typeof part.refusal !== "string"))
      refuse(`${where}.type`, "string", "refusal parts are an assistant's only, and need their refusal");
  });
}

const contentText = (content: ChatMessageParam["content"]): string =>
  typeof content === "string"
    ? content
    : (content ?? []).map((part) => (part.type === "text" ? part.text : part.refusal)).join("\n");

/**
 * What an assistant said, as one text: its content (or its refusal), then its tool or function
 * calls as JSON, so a model that reads the conversation sees what was asked of the tools.
 */
function assistantText(message: ChatMessageParam): string {
  const said = contentText(message.content) || (message.refusal ?? "");
  const calls = [
    message.tool_calls?.length ? JSON.stringify({ tool_calls: message.tool_calls }) : "",
    message.function_call ? JSON.stringify({ function_call: message.function_call }) : "",
  ];
  return [said, ...calls].filter((text) => text !== "").join("\n");
}

/** The function a tool call named (from the assistant's tool_calls), to say whose result a tool message is. */
function toolNames(messages: ChatMessageParam[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages)
    for (const call of (message.tool_calls ?? []) as { id?: unknown; function?: { name?: unknown } }[])
      if (typeof call.id === "string" && typeof call.function?.name === "string")
        names.set(call.id, call.function.name);
  return names;
}

/** A tool's (or a function's) result, stated as a user turn: the models here have no tool role. */
function resultText(message: ChatMessageParam, names: Map<string, string>): string {
  const content = contentText(message.content);
  if (message.role === "function") return `Result of the function ${message.name ?? ""}:\n${content}`;
  const id = message.tool_call_id ?? "";
  const name = names.get(id);
  return `Result of the tool call ${id}${name ? ` (${name})` : ""}:\n${content}`;
}

export interface MappedMessages {
  messages: Message[];
  instructions?: string;
}

/**
 * OpenAI's messages as the text job's: system and developer messages, wherever they stand, become
 * `instructions` in their order (added to the model's system turn after its persona, which they never
 * replace; blank ones add nothing); user messages become `You` turns, assistant messages `Bot` turns
 * (empty ones included), tool and function results `You` turns stating the result. A blank user
 * message, and a conversation of system messages only, are refused.
 */
export function mapChatMessages(messages: ChatMessageParam[]): MappedMessages {
  const conversation: Message[] = [];
  const instructions: string[] = [];
  const names = toolNames(messages);
  messages.forEach((message, at) => {
    checkFields(message, at);
    const turn = (role: Message["role"], content: string) =>
      conversation.push({ role, content, index: conversation.length });
    if (message.role === "system" || message.role === "developer") {
      const text = contentText(message.content).trim();
      if (text) instructions.push(text);
    } else if (message.role === "assistant") turn("Bot", assistantText(message));
    else if (message.role === "user") {
      const text = contentText(message.content);
      if (!/\S/.test(text))
        refuse(`messages[${at}].content`, "string", `messages[${at}].content must not be empty or blank`);
      turn("You", text);
    } else turn("You", resultText(message, names));
  });
  if (conversation.length === 0)
    refuse("messages", "array", "messages must hold at least one user, assistant or tool message");
  const joined = instructions.join("\n\n");
  return joined ? { messages: conversation, instructions: joined } : { messages: conversation };
}
