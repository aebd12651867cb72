// The five models and who speaks on each: the worker's own character data files, served by the
// gateway under /playground/characters/ (one JSON file a model, named by its lower-cased id).

/** The contract's model ids (docs/spec/api.md): `default`, then the four character models. */
export const MODELS = ["default", "Witch", "Mage", "Succubus", "Lightning"];

/** The character behind `model`: { model, botName, persona, description }. */
export async function loadCharacter(model) {
  const response = await fetch(`/playground/characters/${model.toLowerCase()}.json`);
  if (!response.ok) throw new Error(`the character data of ${model} could not be loaded (${response.status})`);
  const character = await response.json();
  return { ...character, description: describe(character) };
}

/** The persona's first sentence, with the name filled in: "Morwenna is a hedge witch who …". */
function describe({ botName, persona }) {
  const first = persona.match(/^.*?[.!?](?=\s|$)/)?.[0] ?? persona;
  return first.replace(/\{\{\s*char\s*\}\}/gi, botName).replace(/\{\{\s*user\s*\}\}/gi, "you");
}
