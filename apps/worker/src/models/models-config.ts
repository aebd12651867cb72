import { MODEL_IDS, SAMPLING_PARAM_SCHEMAS, type ModelId } from "@chorus/contracts";
import type { FromSchema } from "json-schema-to-ts";

/** A model's sampling defaults: the bounds a request has (from @chorus/contracts), no seed. */
const sampling = {
  type: "object",
  additionalProperties: false,
  properties: {
    max_tokens: SAMPLING_PARAM_SCHEMAS.max_tokens,
    temperature: SAMPLING_PARAM_SCHEMAS.temperature,
    top_p: SAMPLING_PARAM_SCHEMAS.top_p,
  },
} as const;

const llamaEngine = {
  type: "object",
  additionalProperties: false,
  required: ["type", "model"],
  properties: {
    type: { const: "llama" },
    /** Path to a .gguf file or an hf:/https URI. */
    model: { type: "string", minLength: 1 },
  },
} as const;

const openAiEngine = {
  type: "object",
  additionalProperties: false,
  required: ["type", "baseUrl", "model"],
  properties: {
    type: { const: "openai-compatible" },
    baseUrl: { type: "string", pattern: "^https?://" },
    /** The upstream's model name. */
    model: { type: "string", minLength: 1 },
    /** Name of the environment variable holding the API key (the key never sits in the file). */
    apiKeyEnv: { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]*$" },
    contextTokens: { type: "integer", minimum: 256 },
    timeoutMs: { type: "integer", minimum: 1000 },
    maxRetries: { type: "integer", minimum: 0, maximum: 10 },
    /** False: the server has no `/v1/completions`, so raw prompts are refused at admission (400), not sent. */
    completions: { type: "boolean" },
    /** The sampling fields beyond OpenAI's that the server takes; a request for another is refused (400). */
    samplingExtensions: {
      type: "array",
      uniqueItems: true,
      items: { type: "string", enum: ["top_k", "min_p", "repetition_penalty", "typical_p"] },
    },
  },
} as const;

const modelSettings = {
  type: "object",
  additionalProperties: false,
  properties: {
    engine: { type: "string" },
    /** Replaces the character's default persona (a request's own persona still wins). */
    persona: { type: "string" },
    sampling,
  },
} as const;

/** MODELS_CONFIG, JSON or YAML; the types below are derived from it, so the two cannot drift. */
export const MODELS_CONFIG_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["engines"],
  properties: {
    engines: { type: "object", minProperties: 1, additionalProperties: { oneOf: [llamaEngine, openAiEngine] } },
    defaultEngine: { type: "string" },
    models: {
      type: "object",
      additionalProperties: false,
      properties: Object.fromEntries(MODEL_IDS.map((id) => [id, modelSettings])) as Record<
        ModelId,
        typeof modelSettings
      >,
    },
  },
} as const;

export type LlamaEngineSpec = FromSchema<typeof llamaEngine>;
export type OpenAiEngineSpec = FromSchema<typeof openAiEngine>;
export type EngineSpec = LlamaEngineSpec | OpenAiEngineSpec;

/** A models configuration file as written (validated): models and their engines may be left out. */
export type ModelsConfigFile = FromSchema<typeof MODELS_CONFIG_SCHEMA>;

/** A model's settings once resolved: every model has an engine. */
export type ModelSettings = FromSchema<typeof modelSettings> & { engine: string };

/** Which engine serves each public model id, and its defaults. */
export interface ModelsConfig {
  engines: Record<string, EngineSpec>;
  models: Record<ModelId, ModelSettings>;
}
