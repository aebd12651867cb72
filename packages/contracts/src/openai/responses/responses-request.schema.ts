/** Any JSON: fields checked further by the chat mapping, or ignored (see IGNORED_RESPONSE_FIELDS). */
const ANY = {} as const;
const orNull = <T extends { type: string }>(schema: T) => ({ ...schema, type: [schema.type, "null"] }) as const;

/** A content part of an input message: text, as the user wrote it or as an earlier output carried it. */
const textPart = {
  type: "object",
  required: ["type", "text"],
  properties: { type: { type: "string", enum: ["input_text", "output_text"] }, text: { type: "string" } },
} as const;

/** An input message (an earlier output message, with its id and status, reads the same). */
const inputMessage = {
  required: ["role", "content"],
  properties: {
    type: { type: "string", enum: ["message"] },
    role: { type: "string", enum: ["system", "developer", "user", "assistant"] },
    content: { anyOf: [{ type: "string" }, { type: "array", items: textPart }] },
    id: { type: "string" },
    status: { type: "string" },
  },
} as const;

/** A call the model made in an earlier turn, echoed back (the output item as it was answered). */
const functionCallItem = {
  additionalProperties: false,
  required: ["type", "call_id", "name", "arguments"],
  properties: {
    type: { const: "function_call" },
    call_id: { type: "string", minLength: 1 },
    name: { type: "string", minLength: 1 },
    arguments: { type: "string" },
    id: { type: "string" },
    status: { type: "string" },
  },
} as const;

/** The result of a call, which the client ran: its output answers the call by `call_id`. */
const functionCallOutputItem = {
  additionalProperties: false,
  required: ["type", "call_id", "output"],
  properties: {
    type: { const: "function_call_output" },
    call_id: { type: "string", minLength: 1 },
    output: { anyOf: [{ type: "string" }, { type: "array", items: textPart }] },
    id: { type: ["string", "null"] },
    status: { type: ["string", "null"] },
  },
} as const;

const ofType = (type: string) => ({ properties: { type: { const: type } }, required: ["type"] }) as const;

/** An input item: a message, a function call, or a call's output (other types are refused before the schema). */
const inputItem = {
  type: "object",
  if: ofType("function_call"),
  then: functionCallItem,
  else: { if: ofType("function_call_output"), then: functionCallOutputItem, else: inputMessage },
} as const;

/**
 * The body of POST /v1/responses: the fields the text job takes, checked here in OpenAI's terms;
 * the sampling and format fields are checked again by the chat mapping they are carried onto. Any
 * field not listed is refused, as OpenAI refuses an unknown argument.
 */
export const responseCreateSchema = {
  type: "object",
  additionalProperties: false,
  required: ["model", "input"],
  properties: {
    model: { type: "string", minLength: 1, maxLength: 100 },
    input: {
      anyOf: [
        // The array first: a bad item's error (input[2].call_id) is the one reported, not "not a string".
        { type: "array", minItems: 1, items: inputItem },
        { type: "string", minLength: 1 },
      ],
    },
    instructions: orNull({ type: "string" }),
    max_output_tokens: orNull({ type: "integer", minimum: 1 }),
    temperature: orNull({ type: "number" }),
    top_p: orNull({ type: "number" }),
    stream: orNull({ type: "boolean" }),
    stream_options: ANY,
    background: orNull({ type: "boolean" }),
    text: {
      type: ["object", "null"],
      additionalProperties: false,
      properties: { format: ANY, verbosity: ANY },
    },
    tools: ANY,
    tool_choice: ANY,
    parallel_tool_calls: ANY,
    metadata: ANY,
    store: ANY,
    user: ANY,
    safety_identifier: ANY,
    prompt_cache_key: ANY,
    prompt_cache_retention: ANY,
    service_tier: ANY,
    truncation: ANY,
    include: ANY,
    previous_response_id: ANY,
    conversation: ANY,
    reasoning: ANY,
    top_logprobs: ANY,
    max_tool_calls: ANY,
    prompt: ANY,
  },
} as const;
