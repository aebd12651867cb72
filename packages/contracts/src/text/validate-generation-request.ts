import { isCharacterModel, type ModelId } from "../models.js";
import { compileValidator } from "../validation/validator.js";
import type { GenerationRequest } from "./generation-request.js";
import { characterModelRequestSchema, defaultModelRequestSchema } from "./generation-request.schema.js";
import { orderByPosition } from "./positions.js";

const validateDefault = compileValidator<GenerationRequest>(defaultModelRequestSchema);
const validateCharacter = compileValidator<GenerationRequest>(characterModelRequestSchema);

/** Validates a request body for `model`; returns it with defaults filled and messages in order. */
export function validateGenerationRequest(model: ModelId, body: unknown): GenerationRequest {
  const request = isCharacterModel(model) ? validateCharacter(body) : validateDefault(body);
  return { ...request, messages: orderByPosition(request.messages) };
}
