import { ApiError } from "../errors.js";
import { checkResponseSchema } from "../text/response-format.js";
import { functionsAllowed, type ToolChoice, type ToolFunction, type ToolsRequest } from "../text/tools.js";

/** OpenAI's bound on a request's tools. */
export const MAX_TOOLS = 128;

const functionName = { type: "string", pattern: "^[a-zA-Z0-9_-]{1,64}$" } as const;

/** `tools`: function tools (OpenAI's `custom` tools are refused by refuseInvalidTools, saying why). */
export const chatToolsSchema = {
  type: ["array", "null"],
  maxItems: MAX_TOOLS,
  items: {
    type: "object",
    additionalProperties: false,
    required: ["type", "function"],
    properties: {
      type: { const: "function" },
      function: {
        type: "object",
        additionalProperties: false,
        required: ["name"],
        properties: {
          name: functionName,
          description: { type: "string" },
          parameters: { type: "object" },
          strict: { type: ["boolean", "null"] },
        },
      },
    },
  },
} as const;

/** `tool_choice`: none, auto, required, or one named function. */
export const chatToolChoiceSchema = {
  anyOf: [
    { type: "null" },
    { type: "string", enum: ["none", "auto", "required"] },
    {
      type: "object",
      additionalProperties: false,
      required: ["type", "function"],
      properties: {
        type: { const: "function" },
        function: {
          type: "object",
          additionalProperties: false,
          required: ["name"],
          properties: { name: functionName },
        },
      },
    },
  ],
} as const;

export interface ChatTool {
  type: "function";
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean | null };
}
export type ChatToolChoice = null | "none" | "auto" | "required" | { type: "function"; function: { name: string } };

/** Tool types and choices other than functions, said as such before the schema names a branch. */
export function refuseInvalidTools(body: unknown): void {
  const { tools, tool_choice } = (body ?? {}) as { tools?: unknown; tool_choice?: unknown };
  if (Array.isArray(tools))
    tools.forEach((tool: { type?: unknown } | null, at) => {
      if (tool?.type !== "function")
        throw ApiError.invalidParameter(`tools[${at}].type`, "string", "only tools of type 'function' are supported");
    });
  const type = (tool_choice as { type?: unknown } | null)?.type;
  if (typeof tool_choice === "object" && tool_choice !== null && type !== "function")
    throw ApiError.invalidParameter(
      "tool_choice",
      "string or object",
      "tool_choice must be 'none', 'auto', 'required' or {type: 'function', function: {name}}",
    );
}

function functionOf(tool: ChatTool): ToolFunction {
  const { name, description, parameters, strict } = tool.function;
  return {
    name,
    ...(description !== undefined ? { description } : {}),
    ...(parameters !== undefined ? { parameters } : {}),
    ...(strict != null ? { strict } : {}),
  };
}

function choiceOf(choice: Exclude<ChatToolChoice, "none">, functions: ToolFunction[]): ToolChoice {
  if (choice === null) return "auto";
  if (typeof choice === "string") return choice;
  const { name } = choice.function;
  if (!functions.some((fn) => fn.name === name))
    throw ApiError.invalidParameter(
      "tool_choice.function.name",
      "string",
      `tool_choice names '${name}', which is not in tools`,
    );
  return { name };
}

/**
 * The job's tools, or none (no tools, or `tool_choice: "none"`: a plain reply). The parameters of
 * every function a call may be forced to are schemas the engines can constrain sampling to (400
 * naming the part otherwise).
 */
export function mapTools(
  tools: ChatTool[] | null | undefined,
  choice: ChatToolChoice | undefined,
): ToolsRequest | undefined {
  const functions = (tools ?? []).map(functionOf);
  if (functions.length === 0) {
    if (choice === "required" || (typeof choice === "object" && choice !== null))
      throw ApiError.invalidParameter("tool_choice", "string", "tool_choice asks for a call, but tools is empty");
    return undefined;
  }
  const seen = new Set<string>();
  functions.forEach((fn, at) => {
    if (seen.has(fn.name))
      throw ApiError.invalidParameter(`tools[${at}].function.name`, "string", `two tools are named '${fn.name}'`);
    seen.add(fn.name);
  });
  if (choice === "none") return undefined;
  const mapped: ToolsRequest = { functions, choice: choiceOf(choice ?? null, functions) };
  for (const fn of functionsAllowed(mapped)) {
    const at = functions.indexOf(fn);
    if (fn.parameters) checkResponseSchema(fn.parameters, `tools[${at}].function.parameters`);
  }
  return mapped;
}
