import { AUDIO_FORMATS, isAudioFormat, isVoiceId, type AudioFormat, type VoiceId } from "@chorus/contracts";
import { EspeakSpeechEngine, type EspeakSpeechEngineOptions } from "./espeak.speech-engine.js";
import {
  OpenAiCompatibleSpeechEngine,
  type OpenAiCompatibleSpeechEngineOptions,
} from "./openai-compatible.speech-engine.js";
import type { SpeechEngine } from "./speech-engine.js";

/** Plain data, as read from the environment by the worker's config (the variables are in docs/configuration.md). */
export type SpeechEngineConfig =
  | ({ engine: "espeak" } & EspeakSpeechEngineOptions)
  | ({ engine: "openai-compatible" } & Omit<OpenAiCompatibleSpeechEngineOptions, "fetch">);

export function createSpeechEngine(config: SpeechEngineConfig): SpeechEngine {
  switch (config.engine) {
    case "espeak":
      return new EspeakSpeechEngine({ concurrency: config.concurrency, maxChunkChars: config.maxChunkChars });
    case "openai-compatible": {
      const { engine: _engine, ...options } = config;
      return new OpenAiCompatibleSpeechEngine(options);
    }
  }
}

/**
 * Reads a voice map written as JSON (`{"Witch":"af_bella","en-us-male":"am_adam"}`), as an operator
 * would put it in one environment variable. Throws naming every key that is not a public voice id.
 */
export function parseVoiceMap(json: string): Partial<Record<VoiceId, string>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new Error("the voice map is not valid JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new Error("the voice map must be a JSON object");
  const entries = Object.entries(parsed as Record<string, unknown>);
  const unknown = entries.filter(([id]) => !isVoiceId(id)).map(([id]) => id);
  if (unknown.length > 0) throw new Error(`the voice map names unknown voice ids: ${unknown.join(", ")}`);
  const blank = entries.filter(([, name]) => typeof name !== "string" || name.trim() === "").map(([id]) => id);
  if (blank.length > 0) throw new Error(`the voice map gives no server voice name for: ${blank.join(", ")}`);
  return Object.fromEntries(entries);
}

/** Reads a comma-separated format list (`mp3,wav,pcm`). Throws naming every unknown format. */
export function parseFormatList(list: string): AudioFormat[] {
  const items = list
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
  const unknown = items.filter((item) => !isAudioFormat(item));
  if (unknown.length > 0)
    throw new Error(`unknown audio formats: ${unknown.join(", ")} (known: ${AUDIO_FORMATS.join(", ")})`);
  if (items.length === 0) throw new Error("the format list is empty");
  return [...new Set(items)] as AudioFormat[];
}
