import { SAMPLING_BOUNDS as S } from "../limits.js";

/**
 * Sampling fields beyond the contract's (extensions): each engine honours some of them
 * (EngineFeatures), and a request asking for one its model's engine cannot honour is refused.
 */
export const SAMPLING_KNOBS = [
  "presence_penalty",
  "frequency_penalty",
  "top_k",
  "min_p",
  "repetition_penalty",
  "typical_p",
  "logit_bias",
] as const;
export type SamplingKnob = (typeof SAMPLING_KNOBS)[number];

/** Token id (as a string: JSON object keys) -> bias added to its logit. */
export type LogitBias = Record<string, number>;

export interface SamplingKnobs {
  presence_penalty?: number;
  frequency_penalty?: number;
  top_k?: number;
  min_p?: number;
  repetition_penalty?: number;
  typical_p?: number;
  logit_bias?: LogitBias;
}

const B = S.logitBias;

/** Each knob's bounds as JSON Schema, shared by the native body and /v1. */
export const SAMPLING_KNOB_SCHEMAS = {
  presence_penalty: { type: "number", minimum: S.presencePenalty.min, maximum: S.presencePenalty.max },
  frequency_penalty: { type: "number", minimum: S.frequencyPenalty.min, maximum: S.frequencyPenalty.max },
  top_k: { type: "integer", minimum: S.topK.min, maximum: S.topK.max },
  min_p: { type: "number", minimum: S.minP.min, maximum: S.minP.max },
  repetition_penalty: {
    type: "number",
    exclusiveMinimum: S.repetitionPenalty.exclusiveMin,
    maximum: S.repetitionPenalty.max,
  },
  typical_p: { type: "number", exclusiveMinimum: S.typicalP.exclusiveMin, maximum: S.typicalP.max },
  logit_bias: {
    type: "object",
    maxProperties: B.maxEntries,
    propertyNames: { pattern: "^(0|[1-9][0-9]{0,8})$" },
    additionalProperties: { type: "number", minimum: B.min, maximum: B.max },
  },
} as const satisfies Record<SamplingKnob, object>;

/** Each knob's value that changes nothing (SDKs send some of them by default): never refused. */
const NEUTRAL: Record<Exclude<SamplingKnob, "logit_bias">, number> = {
  presence_penalty: 0,
  frequency_penalty: 0,
  top_k: 0,
  min_p: 0,
  repetition_penalty: 1,
  typical_p: 1,
};

/** Whether `value` of `knob` asks the engine for something (an empty logit_bias asks nothing). */
export function isNeutralKnob(knob: SamplingKnob, value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (knob === "logit_bias") return Object.keys(value).length === 0;
  return value === NEUTRAL[knob];
}

/** The knobs `sampling` sets to something other than their neutral value. */
export function knobsSet(sampling: SamplingKnobs): SamplingKnob[] {
  return SAMPLING_KNOBS.filter((knob) => !isNeutralKnob(knob, sampling[knob]));
}

/** The knobs a raw body sets (null is "not set"), neutral values left out: they ask nothing. */
export function sentSamplingKnobs(params: Record<string, unknown>): SamplingKnobs {
  const sent: Record<string, unknown> = {};
  for (const knob of SAMPLING_KNOBS) if (!isNeutralKnob(knob, params[knob])) sent[knob] = params[knob];
  return sent;
}
