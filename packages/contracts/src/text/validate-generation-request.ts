import { isCharacterModel, type ModelId } from "../models.js";
import { compileValidator } from "../validation/validator.js";
import type { GenerationRequest, SamplingParams } from "./generation-request.js";
import { characterModelRequestSchema, defaultModelRequestSchema } from "./generation-request.schema.js";
import { orderByPosition } from "./positions.js";
import { checkResponseSchema } from "./response-format.js";
import { sentSamplingKnobs } from "./sampling-knobs.js";

const validateDefault = compileValidator<GenerationRequest>(defaultModelRequestSchema);
const validateCharacter = compileValidator<GenerationRequest>(characterModelRequestSchema);

/** Validates a request body for `model`; returns it with defaults filled and messages in order. */
export function validateGenerationRequest(model: ModelId, body: unknown): GenerationRequest {
  const request = isCharacterModel(model) ? validateCharacter(body) : validateDefault(body);
  if (request.responseFormat?.type === "json_schema")
    checkResponseSchema(request.responseFormat.schema, "responseFormat.schema");
  return { ...request, messages: orderByPosition(request.messages) };
}

const SAMPLING_FIELDS = ["max_tokens", "temperature", "top_p", "seed"] as const;

/** The sampling fields present in a raw body (read before validation fills in the defaults). */
export function sentSamplingParams(body: unknown): Partial<SamplingParams> {
  const params = (body as { samplingParams?: unknown } | null)?.samplingParams;
  if (typeof params !== "object" || params === null) return {};
  const sent: Partial<SamplingParams> = sentSamplingKnobs(params as Record<string, unknown>);
  for (const field of SAMPLING_FIELDS) {
    const value = (params as Record<string, unknown>)[field];
    if (typeof value === "number") sent[field] = value;
  }
  return sent;
}
