import { readFile } from "node:fs/promises";
import { MODEL_IDS, type ModelId, type SamplingParams } from "@chorus/contracts";

/** A model id's built-in character: who it is when a request brings no persona. */
export interface Character {
  model: ModelId;
  botName: string;
  persona: string;
  sampling: SamplingParams;
}

export type CharacterCatalog = Record<ModelId, Character>;

/** The data files sit in apps/worker/characters/, two levels above both src/ and dist/ modules. */
const DEFAULT_DIRECTORY = new URL("../../characters/", import.meta.url);

function checkCharacter(model: ModelId, value: Partial<Character>, file: string): Character {
  const ok = value.model === model && typeof value.botName === "string" && typeof value.persona === "string" && typeof value.sampling === "object";
  if (!ok) throw new Error(`${file}: expected {model: "${model}", botName, persona, sampling}`);
  return value as Character;
}

export async function loadCharacterCatalog(directory: URL = DEFAULT_DIRECTORY): Promise<CharacterCatalog> {
  const entries = await Promise.all(
    MODEL_IDS.map(async (model) => {
      const file = new URL(`${model.toLowerCase()}.json`, directory);
      const parsed = JSON.parse(await readFile(file, "utf8")) as Partial<Character>;
      return [model, checkCharacter(model, parsed, file.pathname)] as const;
    }),
  );
  return Object.fromEntries(entries) as CharacterCatalog;
}
