import { SAMPLING_BOUNDS } from "../limits.js";
import { orNull } from "./or-null.js";
import {
  SAMPLING_KNOB_SCHEMAS,
  SAMPLING_KNOBS,
  sentSamplingKnobs,
  type SamplingKnobs,
} from "../text/sampling-knobs.js";

/**
 * /v1's sampling fields beyond temperature/top_p/seed: OpenAI's (`presence_penalty`,
 * `frequency_penalty`, `logit_bias`) and the extensions llama.cpp and vLLM take (`top_k`, `min_p`,
 * `repetition_penalty`, `typical_p`), with the native bounds.
 */
export const chatSamplingKnobSchemas = Object.fromEntries(
  SAMPLING_KNOBS.map((knob) => [knob, orNull(SAMPLING_KNOB_SCHEMAS[knob])]),
) as { [K in keyof typeof SAMPLING_KNOB_SCHEMAS]: ReturnType<typeof orNull<(typeof SAMPLING_KNOB_SCHEMAS)[K]>> };

/** The knobs a chat body sets (null is "not set"; neutral values, such as SDKs send, ask nothing). */
export function mapSamplingKnobs(body: Record<string, unknown>): SamplingKnobs {
  return sentSamplingKnobs(body);
}

/**
 * OpenAI's temperature 0 is greedy decoding, and so it is here (the engines pick the most likely
 * token); between 0 and the service's lowest sampled temperature, that lowest one.
 */
export function mapTemperature(temperature: number): number {
  return temperature === 0 ? 0 : Math.max(temperature, SAMPLING_BOUNDS.temperature.min);
}
