// @ts-check
// The five models and who speaks on each: the worker's own character data files, served by the
// gateway under /playground/characters/ (one JSON file a model, named by its lower-cased id).

/** @typedef {import("/playground/client/index.js").ModelId} ModelId */

/**
 * A character data file (packages/contracts/characters/*.json), as the worker reads it.
 * @typedef {object} CharacterData
 * @property {ModelId} model
 * @property {string} botName
 * @property {string} persona `{{char}}` and `{{user}}` stand for the bot's name and the user.
 * @property {string[]} traits
 * @property {{ max_tokens: number, temperature: number, top_p: number }} sampling
 */

/** @typedef {CharacterData & { description: string }} Character The data and the persona's first sentence. */

/**
 * The contract's model ids (docs/spec/api.md): `default`, then the four character models.
 * @type {readonly ModelId[]}
 */
export const MODELS = ["default", "Witch", "Mage", "Succubus", "Lightning"];

/**
 * The character behind `model`: { model, botName, persona, description, … }.
 * @param {ModelId} model
 * @returns {Promise<Character>}
 */
export async function loadCharacter(model) {
  const response = await fetch(`/playground/characters/${model.toLowerCase()}.json`);
  if (!response.ok) throw new Error(`the character data of ${model} could not be loaded (${response.status})`);
  /** @type {CharacterData} */
  const character = await response.json();
  return { ...character, description: describe(character) };
}

/**
 * The persona's first sentence, with the name filled in: "Morwenna is a hedge witch who …".
 * @param {Pick<CharacterData, "botName" | "persona">} character
 */
function describe({ botName, persona }) {
  const first = persona.match(/^.*?[.!?](?=\s|$)/)?.[0] ?? persona;
  return first.replace(/\{\{\s*char\s*\}\}/gi, botName).replace(/\{\{\s*user\s*\}\}/gi, "you");
}
