import { REQUEST_LIMITS as L, SAMPLING_BOUNDS as S } from "../limits.js";
import { chatSamplingKnobSchemas } from "./map-sampling.js";
import { chatResponseFormatSchema } from "./map-structured-output.js";
import { chatMessageSchema } from "./chat-message.schema.js";
import { chatToolChoiceSchema, chatToolsSchema } from "./map-tools.js";

/** OpenAI sends `null` for "not set" as readily as leaving a field out: every optional field takes it. */
const orNull = <T extends { type: string }>(schema: T) => ({ ...schema, type: [schema.type, "null"] }) as const;

const stopSequence = { type: "string", minLength: 1, maxLength: L.maxStopChars } as const;

/** Fields OpenAI defines that this service accepts only at their neutral value (see NEUTRAL_ONLY_FIELDS). */
const ANY = {} as const;

/**
 * The body of POST /v1/chat/completions. Fields mapped onto the text job are checked here with the
 * native bounds; fields ignored or accepted only at a neutral value take any JSON here and are
 * checked by mapChatCompletionRequest, which names why a value is refused. Any other field is
 * refused, as OpenAI refuses an unknown argument.
 */
export const chatCompletionRequestSchema = {
  type: "object",
  additionalProperties: false,
  required: ["model", "messages"],
  properties: {
    model: { type: "string", minLength: 1, maxLength: 100 },
    // Bounded by the body's size; what the model's context cannot hold the worker trims or refuses.
    messages: { type: "array", minItems: 1, items: chatMessageSchema },
    // Bounded by the deployment's MAX_COMPLETION_TOKENS, checked by mapChatCompletionRequest.
    max_tokens: orNull({ type: "integer", minimum: S.maxTokens.min }),
    max_completion_tokens: orNull({ type: "integer", minimum: S.maxTokens.min }),
    // OpenAI's range is 0-2: 0 is greedy, between it and the service's lowest, that lowest (mapTemperature).
    temperature: orNull({ type: "number", minimum: 0, maximum: S.temperature.max }),
    top_p: orNull({ type: "number", exclusiveMinimum: S.topP.exclusiveMin, maximum: S.topP.max }),
    seed: orNull({ type: "integer", minimum: S.seed.min, maximum: S.seed.max }),
    stream: orNull({ type: "boolean" }),
    stream_options: {
      type: ["object", "null"],
      additionalProperties: false,
      properties: { include_usage: orNull({ type: "boolean" }), include_obfuscation: orNull({ type: "boolean" }) },
    },
    // One sequence, or up to four (OpenAI's bound).
    stop: {
      anyOf: [stopSequence, { type: "array", maxItems: L.maxStopSequences, items: stopSequence }, { type: "null" }],
    },
    n: ANY,
    ...chatSamplingKnobSchemas,
    logprobs: ANY,
    top_logprobs: ANY,
    tools: chatToolsSchema,
    tool_choice: chatToolChoiceSchema,
    parallel_tool_calls: ANY,
    functions: ANY,
    function_call: ANY,
    response_format: chatResponseFormatSchema,
    modalities: ANY,
    audio: ANY,
    prediction: ANY,
    reasoning_effort: ANY,
    web_search_options: ANY,
    user: ANY,
    metadata: ANY,
    store: ANY,
    service_tier: ANY,
    safety_identifier: ANY,
    prompt_cache_key: ANY,
    verbosity: ANY,
  },
} as const;
