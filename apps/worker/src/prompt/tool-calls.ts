import { randomBytes } from "node:crypto";
import {
  argumentsSchemaOf,
  toolCallSchema,
  type ResponseFormat,
  type ToolCall,
  type ToolsRequest,
} from "@chorus/contracts";

/**
 * The functions as the system turn states them, and the one form a call takes: a JSON object alone.
 * The same form is what a forced call is constrained to, so a model sees in its prompt what it then
 * writes.
 */
export function toolsInstructions(tools: ToolsRequest): string {
  const list = tools.functions
    .map((fn) => {
      const about = fn.description ? `: ${fn.description}` : "";
      return `- ${fn.name}${about}\n  arguments (JSON Schema): ${JSON.stringify(argumentsSchemaOf(fn))}`;
    })
    .join("\n");
  const { choice } = tools;
  const when =
    choice === "auto"
      ? "When a function helps, reply with only"
      : typeof choice === "object"
        ? `Call the function ${choice.name}: reply with only`
        : "Call one of them: reply with only";
  return `You can call these functions:\n${list}\n${when} a JSON object {"name": <function name>, "arguments": {…}}.`;
}

/** A choice that forces a call is met by constrained sampling: the reply is a call's JSON (else none). */
export function forcedCallFormat(tools: ToolsRequest): ResponseFormat | undefined {
  if (tools.choice === "auto") return undefined;
  return { type: "json_schema", name: "tool_call", schema: toolCallSchema(tools), strict: true };
}

/** The JSON a reply holds: itself, or inside a code fence or <tool_call> tags, as models write calls. */
function jsonIn(reply: string): unknown {
  const text = reply.trim();
  const wrapped =
    /^```(?:json)?\s*([\s\S]*?)\s*```$/.exec(text) ?? /^<tool_call>\s*([\s\S]*?)\s*<\/tool_call>$/.exec(text);
  try {
    return JSON.parse(wrapped?.[1] ?? text);
  } catch {
    return undefined;
  }
}

/**
 * The call a reply is, when it is one whole: a JSON object naming one of the functions the choice
 * allows, with an arguments object. Anything else (text, JSON of another form, a call cut short by
 * the token limit) is a plain reply.
 */
export function toolCallIn(reply: string, tools: ToolsRequest): ToolCall | null {
  const json = jsonIn(reply) as { name?: unknown; arguments?: unknown } | undefined;
  if (typeof json !== "object" || json === null || typeof json.name !== "string") return null;
  const { choice } = tools;
  const allowed = typeof choice === "object" ? [choice.name] : tools.functions.map((fn) => fn.name);
  const args = json.arguments ?? {};
  if (!allowed.includes(json.name) || typeof args !== "object" || args === null || Array.isArray(args)) return null;
  return { id: `call_${randomBytes(12).toString("hex")}`, name: json.name, arguments: JSON.stringify(args) };
}
