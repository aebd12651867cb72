import { SAMPLING_KNOBS, type EngineFeatures, type ResponseFormat } from "@chorus/contracts";
import type { GenerationInput } from "./llm-engine.js";

/**
 * llama-server's /completion takes every extra knob, and a JSON schema it turns into a grammar (which
 * also forces a tool call); its prompt may be any tokens, a raw text's as well as a chat's.
 */
export const LLAMA_SERVER_FEATURES: EngineFeatures = {
  sampling: [...SAMPLING_KNOBS],
  responseFormats: ["json_object", "json_schema"],
  tools: true,
  rawPrompt: true,
};

/** The knobs under llama-server's names; logit_bias as [token, bias] pairs. */
function knobFields(input: GenerationInput): Record<string, unknown> {
  const { presence_penalty, frequency_penalty, top_k, min_p, repetition_penalty, typical_p, logit_bias } =
    input.sampling.knobs ?? {};
  const fields: Record<string, unknown> = {
    presence_penalty,
    frequency_penalty,
    top_k,
    min_p,
    repeat_penalty: repetition_penalty,
    typical_p,
    logit_bias: logit_bias && Object.entries(logit_bias).map(([token, bias]) => [Number(token), bias]),
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/** The schema llama-server constrains the reply with (`json_object`: any object). */
function jsonSchemaOf(format: ResponseFormat): Record<string, unknown> {
  return format.type === "json_object" ? { type: "object" } : format.schema;
}

/**
 * The sampling part of a /completion body. A reproducible job reads its prompt afresh
 * (`cache_prompt: false`): a prompt's KV state read in another batch differs in its last bits, enough
 * to change a sampled token, so a reply would depend on what the cache held.
 */
export function samplingFields(input: GenerationInput): Record<string, unknown> {
  const { maxTokens, temperature, topP, seed, reproducible } = input.sampling;
  return {
    n_predict: maxTokens,
    temperature,
    top_p: topP,
    seed,
    ...knobFields(input),
    ...(input.responseFormat ? { json_schema: jsonSchemaOf(input.responseFormat) } : {}),
    cache_prompt: reproducible !== true,
  };
}
