/**
 * Extension (from /v1 only): functions the model may call instead of replying. `choice` says whether
 * it must (`required`: one of them; `{name}`: that one) or may (`auto`). Engines that constrain
 * sampling force a call with a schema made from the functions' parameters (toolCallSchema).
 */
export interface ToolFunction {
  name: string;
  description?: string;
  /** JSON Schema of the arguments object (absent: no arguments). */
  parameters?: Record<string, unknown>;
  strict?: boolean;
}

export type ToolChoice = "auto" | "required" | { name: string };

export interface ToolsRequest {
  functions: ToolFunction[];
  choice: ToolChoice;
}

/** A call the model made, as the record keeps it: `arguments` is the JSON text of the arguments object. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** The arguments schema of a function that declares none: an empty object. */
const NO_ARGUMENTS = { type: "object", properties: {}, additionalProperties: false } as const;

export const argumentsSchemaOf = (fn: ToolFunction): Record<string, unknown> => fn.parameters ?? NO_ARGUMENTS;

/** The functions a choice allows: the one it names, or all of them. */
export function functionsAllowed(tools: ToolsRequest): ToolFunction[] {
  const { choice } = tools;
  return typeof choice === "object" ? tools.functions.filter((fn) => fn.name === choice.name) : tools.functions;
}

/**
 * The form of a forced call: `{"name": …, "arguments": {…}}` for one of the allowed functions, its
 * arguments valid against that function's parameters.
 */
export function toolCallSchema(tools: ToolsRequest): Record<string, unknown> {
  const forms = functionsAllowed(tools).map((fn) => ({
    type: "object",
    properties: { name: { const: fn.name }, arguments: argumentsSchemaOf(fn) },
    required: ["name", "arguments"],
    additionalProperties: false,
  }));
  return forms.length === 1 ? forms[0]! : { anyOf: forms };
}

/** The JSON Schema of a record's `toolCalls` (documentation and the OpenAPI document). */
export const toolCallsRecordSchema = {
  type: "array",
  items: {
    type: "object",
    required: ["id", "name", "arguments"],
    properties: {
      id: { type: "string", description: "The call's id (`call_…`): a tool message answers it by `tool_call_id`." },
      name: { type: "string", description: "The function called." },
      arguments: { type: "string", description: "The arguments object, as JSON text." },
    },
  },
  description:
    "When `completed` and the request (POST /v1/chat/completions or /v1/responses with `tools`) was answered with a call instead of text: the calls the model made; `reply` is then empty. See docs/openai.md, Tools.",
} as const;
