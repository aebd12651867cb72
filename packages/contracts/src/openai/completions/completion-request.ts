import { ApiError } from "../../errors.js";
import { REQUEST_LIMITS as L, SAMPLING_BOUNDS as S } from "../../limits.js";
import type { GenerationRequest, SamplingParams } from "../../text/generation-request.js";
import { compileValidator } from "../../validation/validator.js";
import type { ChatLimits } from "../map-chat-request.js";
import { chatSamplingKnobSchemas, mapSamplingKnobs, mapTemperature } from "../map-sampling.js";
import { orNull } from "../or-null.js";

/** OpenAI's default max_tokens for a text completion (its API reference: 16). */
export const TEXT_COMPLETION_DEFAULT_MAX_TOKENS = 16;

const stopSequence = { type: "string", minLength: 1, maxLength: L.maxStopChars } as const;
const ANY = {} as const;

/**
 * The body of POST /v1/completions (OpenAI's legacy text completion). `prompt` is one text (or a list
 * of one); the fields with no counterpart here take any JSON and are checked by
 * mapTextCompletionRequest, which says why a value is refused. Any other field is refused.
 */
export const textCompletionRequestSchema = {
  type: "object",
  additionalProperties: false,
  required: ["model", "prompt"],
  properties: {
    model: { type: "string", minLength: 1, maxLength: 100 },
    prompt: ANY,
    max_tokens: orNull({ type: "integer", minimum: S.maxTokens.min }),
    temperature: orNull({ type: "number", minimum: 0, maximum: S.temperature.max }),
    top_p: orNull({ type: "number", exclusiveMinimum: S.topP.exclusiveMin, maximum: S.topP.max }),
    seed: orNull({ type: "integer", minimum: S.seed.min, maximum: S.seed.max }),
    stream: orNull({ type: "boolean" }),
    stream_options: {
      type: ["object", "null"],
      additionalProperties: false,
      properties: { include_usage: orNull({ type: "boolean" }), include_obfuscation: orNull({ type: "boolean" }) },
    },
    stop: {
      anyOf: [stopSequence, { type: "array", maxItems: L.maxStopSequences, items: stopSequence }, { type: "null" }],
    },
    ...chatSamplingKnobSchemas,
    n: ANY,
    best_of: ANY,
    echo: ANY,
    suffix: ANY,
    logprobs: ANY,
    user: ANY,
  },
} as const;

interface TextCompletionRequest {
  model: string;
  prompt: unknown;
  max_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  seed?: number | null;
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean | null } | null;
  stop?: string | string[] | null;
  [other: string]: unknown;
}

const validateTextCompletion = compileValidator<TextCompletionRequest>(textCompletionRequestSchema);

/** Fields at the value that changes nothing (or null) only: what else each would ask is not done here. */
const NEUTRAL_ONLY: Record<string, { accepts: (value: unknown) => boolean; why: string }> = {
  n: { accepts: (v) => v === 1, why: "n must be 1: a completion here has exactly one choice" },
  best_of: { accepts: (v) => v === 1, why: "best_of must be 1: one completion is generated" },
  echo: {
    accepts: (v) => v === false,
    why: "echo is not supported (only false): the reply does not repeat the prompt",
  },
  suffix: { accepts: () => false, why: "suffix (insertion between a prompt and a suffix) is not supported" },
  logprobs: { accepts: () => false, why: "logprobs are not supported (only null)" },
};

/** The one text of `prompt`: a string, or a list of one string (token lists and batches are refused). */
function promptText(prompt: unknown): string {
  const text = Array.isArray(prompt) && prompt.length === 1 ? (prompt[0] as unknown) : prompt;
  if (typeof text !== "string")
    throw ApiError.invalidParameter(
      "prompt",
      "string",
      "prompt must be a string or a list of one string (token arrays and batches of prompts are not supported)",
    );
  if (!/\S/.test(text)) throw ApiError.invalidParameter("prompt", "string", "prompt must not be empty or blank");
  return text;
}

function refuseNonNeutral(body: TextCompletionRequest): void {
  for (const [field, rule] of Object.entries(NEUTRAL_ONLY)) {
    const value = body[field];
    if (value !== undefined && value !== null && !rule.accepts(value))
      throw ApiError.invalidParameter(field, "neutral value", rule.why);
  }
  if (body.stream_options != null && body.stream !== true)
    throw ApiError.invalidParameter("stream_options", "null", "stream_options is only allowed when stream is true");
}

/** The sampling fields the client set; max_tokens always (OpenAI's default when absent). */
function sentSampling(body: TextCompletionRequest, limits: ChatLimits): Partial<SamplingParams> {
  const { max_tokens, temperature, top_p, seed } = body;
  if (max_tokens != null && max_tokens > limits.maxCompletionTokens)
    throw ApiError.invalidParameter(
      "max_tokens",
      "integer",
      `max_tokens must be at most ${limits.maxCompletionTokens} (this deployment's MAX_COMPLETION_TOKENS)`,
    );
  const sent: Partial<SamplingParams> = mapSamplingKnobs(body);
  sent.max_tokens = max_tokens ?? Math.min(TEXT_COMPLETION_DEFAULT_MAX_TOKENS, limits.maxCompletionTokens);
  if (temperature != null) sent.temperature = mapTemperature(temperature);
  if (top_p != null) sent.top_p = top_p;
  if (seed != null) sent.seed = seed;
  return sent;
}

/** What a text completion asks of the text job, and how the client wants the answer. */
export interface MappedTextCompletion {
  request: GenerationRequest;
  clientSampling: Partial<SamplingParams>;
  stream: boolean;
  includeUsage: boolean;
}

/**
 * Validates an OpenAI text completion body (400s name the field) and maps it onto the text job: a raw
 * prompt (no chat template, no persona), the same queue and records as a chat.
 */
export function mapTextCompletionRequest(body: unknown, limits: ChatLimits): MappedTextCompletion {
  const completion = validateTextCompletion(body);
  refuseNonNeutral(completion);
  const prompt = promptText(completion.prompt);
  const clientSampling = sentSampling(completion, limits);
  const stop = typeof completion.stop === "string" ? [completion.stop] : (completion.stop ?? []);
  const request: GenerationRequest = {
    messages: [],
    prompt,
    ...(stop.length > 0 ? { stop } : {}),
    contextFit: { ceiling: limits.maxCompletionTokens },
    samplingParams: {
      max_tokens: S.maxTokens.default,
      temperature: S.temperature.default,
      top_p: S.topP.default,
      ...clientSampling,
    },
  };
  return {
    request,
    clientSampling,
    stream: completion.stream === true,
    includeUsage: completion.stream_options?.include_usage === true,
  };
}
