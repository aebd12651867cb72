import { ApiError, grants, isModelId, MODEL_IDS, type ModelId } from "@chorus/contracts";
import type { ApiKeyRecord } from "@chorus/platform/api-keys";

/** An unknown model is 404 (naming `model`); a known one outside the key's scopes is 403. */
export function textModelAccess(key: ApiKeyRecord, model: string): ModelId {
  if (!isModelId(model))
    throw new ApiError("NOT_FOUND", `unknown model '${model}'; text models: ${MODEL_IDS.join(", ")}`, {
      parameter: "model",
    });
  if (grants(key.scopes, { kind: "text", model })) return model;
  throw new ApiError("FORBIDDEN", `this API key has no access to model '${model}' (scope text:${model})`);
}

/** 403 unless the key may use text-to-speech (scope tts). */
export function speechAccess(key: ApiKeyRecord): void {
  if (!grants(key.scopes, { kind: "tts" }))
    throw new ApiError("FORBIDDEN", "this API key has no access to text-to-speech (scope tts)");
}
