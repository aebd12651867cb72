import { MODEL_IDS } from "../models.js";
import { grants, SCOPE_ALL } from "../scopes.js";
import type { OpenAiModel, OpenAiModelList } from "./openai-shapes.js";

/** The speech model GET /v1/models lists; POST /v1/audio/speech takes it and OpenAI's own names. */
export const OPENAI_SPEECH_MODEL = "tts-1";
/** OpenAI's speech model names, all answered by this deployment's one speech engine (docs/api.md). */
export const OPENAI_SPEECH_MODEL_ALIASES: readonly string[] = [OPENAI_SPEECH_MODEL, "tts-1-hd", "gpt-4o-mini-tts"];

/** `created` of every listed model (Unix seconds): the day the /v1 front door was added. */
const LISTED_SINCE = Date.UTC(2026, 10, 26) / 1000;
const OWNER = "chorus";

const model = (id: string, kind: OpenAiModel["chorus_kind"]): OpenAiModel => ({
  id,
  object: "model",
  created: LISTED_SINCE,
  owned_by: OWNER,
  chorus_kind: kind,
});

/** Every model with whether `scopes` may use it: the text models under their native ids, then speech. */
function modelsFor(scopes: readonly string[]): OpenAiModel[] {
  const chat = MODEL_IDS.filter((id) => grants(scopes, { kind: "text", model: id })).map((id) => model(id, "chat"));
  const speech = grants(scopes, { kind: "tts" }) ? [model(OPENAI_SPEECH_MODEL, "speech")] : [];
  return [...chat, ...speech];
}

/** GET /v1/models: the models a key with `scopes` may use (every model for `*`). */
export function openAiModelList(scopes: readonly string[] = [SCOPE_ALL]): OpenAiModelList {
  return { object: "list", data: modelsFor(scopes) };
}

/** GET /v1/models/{id}: the model, or undefined when it is unknown or outside `scopes`. */
export function openAiModel(id: string, scopes: readonly string[]): OpenAiModel | undefined {
  return modelsFor(scopes).find((listed) => listed.id === id);
}
