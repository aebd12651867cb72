import { isCharacterModel, type CharacterModelId, type ModelId } from "../models.js";

export type VoiceGender = "female" | "male";

/** One entry of the public voice catalogue (GET /api/voices). */
export interface Voice {
  /** What a client sends as `voice`. */
  id: string;
  /** BCP 47 tag of the language and accent the voice speaks. */
  language: string;
  gender: VoiceGender;
  description: string;
  /** Set on the voice a character model speaks with: its id equals the model id. */
  character?: CharacterModelId;
}

/**
 * The catalogue: each character's own voice (id = the character's model id), then generic voices.
 * Ids are public: never rename one, clients store them. Engines map every id to their own voices
 * (see the worker's engines/tts), so adding an id here means adding it to each engine's map.
 */
export const VOICES = [
  {
    id: "Witch",
    language: "en-GB",
    gender: "female",
    character: "Witch",
    description: "The Witch: a bright, sharp British voice, pitched high",
  },
  {
    id: "Mage",
    language: "en-GB",
    gender: "male",
    character: "Mage",
    description: "The Mage: a deep, unhurried British voice",
  },
  {
    id: "Succubus",
    language: "en-US",
    gender: "female",
    character: "Succubus",
    description: "The Succubus: a low, soft American voice, slightly slow",
  },
  {
    id: "Lightning",
    language: "en-US",
    gender: "male",
    character: "Lightning",
    description: "Lightning: a quick, high-energy American voice",
  },
  { id: "en-us-female", language: "en-US", gender: "female", description: "American English, female" },
  { id: "en-us-male", language: "en-US", gender: "male", description: "American English, male" },
  {
    id: "en-us-nyc-male",
    language: "en-US",
    gender: "male",
    description: "American English, New York City accent, male",
  },
  { id: "en-gb-female", language: "en-GB", gender: "female", description: "British English, female" },
  { id: "en-gb-male", language: "en-GB", gender: "male", description: "British English, male" },
  {
    id: "en-gb-rp-female",
    language: "en-GB",
    gender: "female",
    description: "British English, Received Pronunciation, female",
  },
  {
    id: "en-gb-rp-male",
    language: "en-GB",
    gender: "male",
    description: "British English, Received Pronunciation, male",
  },
  { id: "en-scotland-female", language: "en-GB-scotland", gender: "female", description: "Scottish English, female" },
  { id: "en-scotland-male", language: "en-GB-scotland", gender: "male", description: "Scottish English, male" },
  { id: "en-north-male", language: "en-GB", gender: "male", description: "Northern English (Lancashire) accent, male" },
  {
    id: "en-midlands-female",
    language: "en-GB",
    gender: "female",
    description: "West Midlands English accent, female",
  },
  { id: "en-caribbean-female", language: "en-029", gender: "female", description: "Caribbean English, female" },
  { id: "en-caribbean-male", language: "en-029", gender: "male", description: "Caribbean English, male" },
] as const satisfies readonly Voice[];

export type VoiceId = (typeof VOICES)[number]["id"];

export const VOICE_IDS: readonly VoiceId[] = VOICES.map((voice) => voice.id);

/** The voice used when a request names none. */
export const DEFAULT_VOICE: VoiceId = "en-us-female";

export function isVoiceId(value: string): value is VoiceId {
  return (VOICE_IDS as readonly string[]).includes(value);
}

/** The catalogue entry for `id`. */
export function voiceById(id: VoiceId): Voice {
  return VOICES.find((voice) => voice.id === id) as Voice;
}

/** The voice a reply of `model` is spoken with when none is asked for: a character's own, else DEFAULT_VOICE. */
export function defaultVoiceFor(model: ModelId): VoiceId {
  return isCharacterModel(model) ? model : DEFAULT_VOICE;
}
