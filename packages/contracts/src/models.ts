/** The public text model ids, exactly as they appear in `/api/text/{model_id}`. */
export const MODEL_IDS = ["default", "Witch", "Mage", "Succubus", "Lightning"] as const;
export type ModelId = (typeof MODEL_IDS)[number];
export type CharacterModelId = Exclude<ModelId, "default">;

export function isModelId(value: string): value is ModelId {
  return (MODEL_IDS as readonly string[]).includes(value);
}

export function isCharacterModel(model: ModelId): model is CharacterModelId {
  return model !== "default";
}
