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

/**
 * Each model id's character (bot name, default persona, traits, sampling), one JSON file per id:
 * read by the worker (its prompts) and served as they are by the gateway (the playground shows
 * them). The folder sits beside src/ and dist/, so this is the same from both.
 */
export const CHARACTERS_DIR = new URL("../characters/", import.meta.url);
