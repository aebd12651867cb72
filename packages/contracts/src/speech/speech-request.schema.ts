import { AUDIO_FORMATS, DEFAULT_AUDIO_FORMAT } from "./audio-formats.js";
import { SPEECH_LIMITS } from "./speech-request.js";
import { DEFAULT_VOICE, VOICE_IDS } from "./voices.js";

/**
 * JSON Schema (draft-07) of the body of POST /api/audio/full and POST /api/tts. Compiled with
 * ajv `useDefaults: true`, a valid body comes out as a complete SpeechRequest.
 */
export const speechRequestSchema = {
  type: "object",
  additionalProperties: false,
  required: ["text"],
  properties: {
    // `\S`: a text of only white space would produce silence, so it is refused like an empty one.
    text: { type: "string", minLength: 1, maxLength: SPEECH_LIMITS.textMaxChars, pattern: "\\S" },
    voice: { type: "string", enum: [...VOICE_IDS], default: DEFAULT_VOICE },
    speed: {
      type: "number",
      minimum: SPEECH_LIMITS.speed.min,
      maximum: SPEECH_LIMITS.speed.max,
      default: SPEECH_LIMITS.speed.default,
    },
    format: { type: "string", enum: [...AUDIO_FORMATS], default: DEFAULT_AUDIO_FORMAT },
  },
} as const;
