import { ApiError } from "../errors.js";
import { AUDIO_FORMATS, DEFAULT_AUDIO_FORMAT } from "../speech/audio-formats.js";
import { SPEECH_LIMITS, type SpeechRequest } from "../speech/speech-request.js";
import { DEFAULT_VOICE, isVoiceId, VOICE_IDS, type VoiceId } from "../speech/voices.js";
import { compileValidator } from "../validation/validator.js";
import { OPENAI_SPEECH_MODEL_ALIASES } from "./openai-models.js";

/**
 * OpenAI's voice names, each mapped to the catalogue voice nearest in accent and register (OpenAI
 * describes its voices only loosely; docs/api.md lists this table). Catalogue ids are taken as well.
 */
export const OPENAI_VOICE_MAP: Readonly<Record<string, VoiceId>> = {
  alloy: "en-us-female",
  ash: "en-us-male",
  ballad: "en-gb-rp-male",
  coral: "en-gb-female",
  echo: "en-us-nyc-male",
  fable: "en-gb-male",
  nova: "en-gb-rp-female",
  onyx: "Mage",
  sage: "en-scotland-female",
  shimmer: "en-midlands-female",
  verse: "en-scotland-male",
  marin: "en-caribbean-female",
  cedar: "en-caribbean-male",
};

/** The body of POST /v1/audio/speech, as OpenAI's SDKs send it. */
export interface OpenAiSpeechRequest {
  model: string;
  input: string;
  voice?: string;
  response_format?: string;
  speed?: number;
  instructions?: string | null;
  stream_format?: string;
}

/** The body of POST /v1/audio/speech (the OpenAPI document shows this very object). */
export const openAiSpeechSchema = {
  type: "object",
  additionalProperties: false,
  required: ["model", "input"],
  properties: {
    model: { type: "string", minLength: 1, maxLength: 100 },
    input: { type: "string", minLength: 1, maxLength: SPEECH_LIMITS.textMaxChars, pattern: "\\S" },
    voice: { type: "string", enum: [...VOICE_IDS, ...Object.keys(OPENAI_VOICE_MAP)] },
    // aac is in OpenAI's list but has no encoder here: its own check below says so.
    response_format: { type: "string", enum: [...AUDIO_FORMATS, "aac"] },
    speed: { type: "number", minimum: SPEECH_LIMITS.speed.min, maximum: SPEECH_LIMITS.speed.max },
    instructions: { type: ["string", "null"] },
    stream_format: { type: "string", enum: ["audio"] },
  },
} as const;

const validateOpenAiSpeech = compileValidator<OpenAiSpeechRequest>(openAiSpeechSchema);

export function isOpenAiSpeechModel(model: unknown): boolean {
  return typeof model === "string" && OPENAI_SPEECH_MODEL_ALIASES.includes(model);
}

/**
 * Validates an OpenAI speech body (400s name the field; the model is checked by the route) and maps it onto a speech
 * request.
 */
export function mapOpenAiSpeechRequest(body: unknown): SpeechRequest {
  const speech = validateOpenAiSpeech(body);
  if (speech.response_format === "aac") {
    throw ApiError.invalidParameter(
      "response_format",
      "string",
      `aac is not offered (no AAC encoder on this service); use one of: ${AUDIO_FORMATS.join(", ")}`,
    );
  }
  if (speech.instructions)
    throw ApiError.invalidParameter(
      "instructions",
      "null",
      "instructions are not supported: the voices here take no directions",
    );
  const voice =
    speech.voice === undefined
      ? DEFAULT_VOICE
      : isVoiceId(speech.voice)
        ? speech.voice
        : (OPENAI_VOICE_MAP[speech.voice] ?? DEFAULT_VOICE);
  const format = (speech.response_format ?? DEFAULT_AUDIO_FORMAT) as SpeechRequest["format"];
  return { text: speech.input, voice, format, speed: speech.speed ?? SPEECH_LIMITS.speed.default };
}
