import { MODEL_IDS, SAMPLING_PARAM_SCHEMAS, type ModelId, type SamplingParams } from "@chorus/contracts";

export interface LlamaEngineSpec {
  type: "llama";
  /** Path to a .gguf file or an hf:/https URI. */
  model: string;
}

export interface OpenAiEngineSpec {
  type: "openai-compatible";
  baseUrl: string;
  /** The upstream's model name. */
  model: string;
  /** Name of the environment variable holding the API key (the key never sits in the file). */
  apiKeyEnv?: string;
  contextTokens?: number;
  timeoutMs?: number;
  maxRetries?: number;
}

export type EngineSpec = LlamaEngineSpec | OpenAiEngineSpec;

export interface ModelSettings {
  engine: string;
  /** Replaces the character's default persona (a request's own persona still wins). */
  persona?: string;
  sampling?: Partial<SamplingParams>;
}

/** Which engine serves each public model id, and its defaults (MODELS_CONFIG, JSON or YAML). */
export interface ModelsConfig {
  engines: Record<string, EngineSpec>;
  models: Record<ModelId, ModelSettings>;
}

/** A model's sampling defaults: the bounds a request has (from @chorus/contracts), no seed. */
const sampling = {
  type: "object",
  additionalProperties: false,
  properties: { max_tokens: SAMPLING_PARAM_SCHEMAS.max_tokens, temperature: SAMPLING_PARAM_SCHEMAS.temperature, top_p: SAMPLING_PARAM_SCHEMAS.top_p },
} as const;

export const MODELS_CONFIG_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["engines"],
  properties: {
    engines: {
      type: "object",
      minProperties: 1,
      additionalProperties: {
        oneOf: [
          { type: "object", additionalProperties: false, required: ["type", "model"], properties: { type: { const: "llama" }, model: { type: "string", minLength: 1 } } },
          {
            type: "object",
            additionalProperties: false,
            required: ["type", "baseUrl", "model"],
            properties: {
              type: { const: "openai-compatible" },
              baseUrl: { type: "string", pattern: "^https?://" },
              model: { type: "string", minLength: 1 },
              apiKeyEnv: { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]*$" },
              contextTokens: { type: "integer", minimum: 256 },
              timeoutMs: { type: "integer", minimum: 1000 },
              maxRetries: { type: "integer", minimum: 0, maximum: 10 },
            },
          },
        ],
      },
    },
    defaultEngine: { type: "string" },
    models: {
      type: "object",
      additionalProperties: false,
      properties: Object.fromEntries(
        MODEL_IDS.map((id) => [id, { type: "object", additionalProperties: false, properties: { engine: { type: "string" }, persona: { type: "string" }, sampling } }]),
      ),
    },
  },
} as const;
