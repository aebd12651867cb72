import { readFile } from "node:fs/promises";
import { CHARACTERS_DIR, MODEL_IDS, type ModelId, type SamplingParams } from "@chorus/contracts";

/** A model id's built-in character: who it is when a request brings no persona. */
export interface Character {
  model: ModelId;
  botName: string;
  /** The default persona, replaced by a request's `persona`. */
  persona: string;
  /** Traits that stay whatever persona a request brings: they keep the character recognisable. */
  traits: string[];
  sampling: SamplingParams;
}

export type CharacterCatalog = Record<ModelId, Character>;

function checkCharacter(model: ModelId, value: Partial<Character>, file: string): Character {
  const ok =
    value.model === model &&
    typeof value.botName === "string" &&
    typeof value.persona === "string" &&
    Array.isArray(value.traits) &&
    typeof value.sampling === "object";
  if (!ok) throw new Error(`${file}: expected {model: "${model}", botName, persona, traits, sampling}`);
  return value as Character;
}

function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${file}: not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
}

export async function loadCharacterCatalog(directory: URL = CHARACTERS_DIR): Promise<CharacterCatalog> {
  const entries = await Promise.all(
    MODEL_IDS.map(async (model) => {
      const file = new URL(`${model.toLowerCase()}.json`, directory);
      const parsed = parseJson(await readFile(file, "utf8"), file.pathname) as Partial<Character>;
      return [model, checkCharacter(model, parsed, file.pathname)] as const;
    }),
  );
  return Object.fromEntries(entries) as CharacterCatalog;
}
