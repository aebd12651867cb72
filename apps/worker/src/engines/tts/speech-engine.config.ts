import type { WorkerConfig } from "../../config.js";
import { parseFormatList, parseVoiceMap, type SpeechEngineConfig } from "./speech-engine.factory.js";

/** The speech engine this worker runs, from its settings; null for TTS_ENGINE=none. */
export function speechEngineConfig(config: WorkerConfig, env: NodeJS.ProcessEnv): SpeechEngineConfig | null {
  if (config.TTS_ENGINE === "none") return null;
  if (config.TTS_ENGINE === "espeak")
    return { engine: "espeak", concurrency: config.TTS_CONCURRENCY, maxChunkChars: config.TTS_MAX_CHUNK_CHARS };
  const apiKey = env.TTS_OPENAI_API_KEY;
  return {
    engine: "openai-compatible",
    baseUrl: config.TTS_OPENAI_BASE_URL ?? "",
    model: config.TTS_OPENAI_MODEL,
    pcmSampleRate: config.TTS_OPENAI_PCM_SAMPLE_RATE,
    timeoutMs: config.TTS_OPENAI_TIMEOUT_MS,
    ...(apiKey ? { apiKey } : {}),
    ...(config.TTS_OPENAI_VOICE_MAP ? { voiceMap: parseVoiceMap(config.TTS_OPENAI_VOICE_MAP) } : {}),
    ...(config.TTS_OPENAI_FORMATS ? { formats: parseFormatList(config.TTS_OPENAI_FORMATS) } : {}),
  };
}
