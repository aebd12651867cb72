/** Any JSON: fields checked further by the chat mapping, or ignored (see IGNORED_RESPONSE_FIELDS). */
const ANY = {} as const;
const orNull = <T extends { type: string }>(schema: T) => ({ ...schema, type: [schema.type, "null"] }) as const;

/** A content part of an input message: text, as the user wrote it or as an earlier output carried it. */
const textPart = {
  type: "object",
  required: ["type", "text"],
  properties: { type: { type: "string", enum: ["input_text", "output_text"] }, text: { type: "string" } },
} as const;

/** An input item: a message (an earlier output message, with its id and status, reads the same). */
const inputMessage = {
  type: "object",
  required: ["role", "content"],
  properties: {
    type: { type: "string", enum: ["message"] },
    role: { type: "string", enum: ["system", "developer", "user", "assistant"] },
    content: { anyOf: [{ type: "string" }, { type: "array", items: textPart }] },
    id: { type: "string" },
    status: { type: "string" },
  },
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
        { type: "string", minLength: 1 },
        { type: "array", minItems: 1, items: inputMessage },
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
