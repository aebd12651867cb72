import { MODEL_IDS } from "../models.js";
import type { OpenAiModel, OpenAiModelList } from "./openai-shapes.js";

/** The speech model GET /v1/models lists; POST /v1/audio/speech takes it and OpenAI's own names. */
export const OPENAI_SPEECH_MODEL = "tts-1";
/** OpenAI's speech model names, all answered by this deployment's one speech engine (docs/api.md). */
export const OPENAI_SPEECH_MODEL_ALIASES: readonly string[] = [OPENAI_SPEECH_MODEL, "tts-1-hd", "gpt-4o-mini-tts"];

/** `created` of every listed model (Unix seconds): the day the /v1 front door was added. */
const LISTED_SINCE = Date.UTC(2026, 10, 26) / 1000;
const OWNER = "chorus";

const model = (id: string): OpenAiModel => ({ id, object: "model", created: LISTED_SINCE, owned_by: OWNER });

/** GET /v1/models: the five text models under their native ids, then the speech model. */
export function openAiModelList(): OpenAiModelList {
  return { object: "list", data: [...MODEL_IDS.map(model), model(OPENAI_SPEECH_MODEL)] };
}
