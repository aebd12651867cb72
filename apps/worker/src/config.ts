import { homedir } from "node:os";
import { join } from "node:path";
import {
  COMMON_ENV,
  ConfigError,
  loadConfig,
  WORKER_LAUNCH_ENV,
  type ConfigOf,
  type EnvSchema,
} from "@chorus/platform/config";
import { redisTargetOf } from "@chorus/platform/redis";
import { DEFAULT_LLAMA_BUILD_CACHE } from "./engines/llm/llama-server.build.js";
import { LLAMA_RUNTIMES } from "./engines/llm/llama-engine.factory.js";
import { DEFAULT_MODEL_URI } from "./engines/llm/model-resolver.js";
import { defaultPromptCacheMiB, memoryBudget } from "./memory-budget.js";

export const WORKER_ENV = {
  ...COMMON_ENV,
  MODELS_CONFIG: {
    type: "string",
    description: "path to a models configuration file (YAML or JSON); replaces the LLM_ENGINE/LLM_MODEL settings",
  },
  LLM_ENGINE: {
    type: "string",
    default: "llama",
    enum: ["llama", "openai-compatible"],
    description: "engine for all five models when there is no MODELS_CONFIG",
  },
  LLM_MODEL: {
    type: "string",
    default: DEFAULT_MODEL_URI,
    description:
      "llama: a .gguf path or hf:user/repo/file.gguf URI (downloaded once into MODELS_DIR); openai-compatible: the upstream model name",
  },
  LLM_BASE_URL: {
    type: "string",
    pattern: "^https?://",
    description: "openai-compatible: the server, e.g. http://vllm:8000/v1 (the key is read from LLM_API_KEY)",
  },
  LLM_CONTEXT_TOKENS: {
    type: "integer",
    minimum: 256,
    description: "openai-compatible: the upstream model's context window (default 8192)",
  },
  MODELS_DIR: {
    type: "string",
    default: join(homedir(), ".cache", "chorus", "models"),
    description: "model download cache",
  },
  LLM_GPU: {
    type: "string",
    default: "false",
    enum: ["false", "auto"],
    description: "false: CPU only; auto: use CUDA/Vulkan/Metal when present",
  },
  LLAMA_RUNTIME: {
    type: "string",
    default: "auto",
    enum: LLAMA_RUNTIMES,
    description:
      "llama: run llama.cpp's own llama-server as a child process (server, the fast one), node-llama-cpp in the worker (in-process), or the server when npm run llama:build made one (auto)",
  },
  LLAMA_SERVER_BIN: {
    type: "string",
    description:
      "llama: a llama-server binary to run (default: the one npm run llama:build keeps in LLAMA_BUILD_CACHE)",
  },
  LLAMA_BUILD_CACHE: {
    type: "string",
    default: DEFAULT_LLAMA_BUILD_CACHE,
    description: "where npm run llama:build keeps its builds",
  },
  LLM_CONTEXT_SIZE: {
    type: "integer",
    default: 4096,
    minimum: 256,
    description: "context tokens per sequence (clamped to the model's training context)",
  },
  LLM_CACHE_RAM_MB: {
    type: "integer",
    default: defaultPromptCacheMiB(memoryBudget().bytes),
    minimum: 0,
    description:
      "llama-server: MiB for prompts kept beyond the slots, per API key (saved slot states; its own --cache-ram is off, as it restores any key's prompt), so a conversation whose slot was taken still skips its prompt; 0: off (default: llama-server's own 8192, or a quarter of the worker's memory if less: its container's cgroup limit, else this machine's)",
  },
  WORKER_CONCURRENCY: {
    type: "integer",
    default: 2,
    minimum: 1,
    maximum: 64,
    description: "text jobs one worker runs at once (one context sequence each)",
  },
  ROUTE_MAX_WAIT_MS: {
    type: "integer",
    default: 2000,
    minimum: 0,
    maximum: 600000,
    description:
      "cache-aware routing: the longest a text job waits for the worker that holds its conversation before any free worker takes it; 0: routing off (every job runs where it is taken)",
  },
  ROUTE_PREFIX_TTL_SECONDS: {
    type: "integer",
    default: 3600,
    minimum: 10,
    description: "cache-aware routing: how long a worker is named as the holder of a conversation it answered",
  },
  PROGRESS_INTERVAL_MS: {
    type: "integer",
    default: 250,
    minimum: 50,
    description: "minimum time between progress writes of one job",
  },
  JOB_TIME_LIMIT_MS: {
    type: "integer",
    default: 300000,
    minimum: 1000,
    description: "a generation running longer is stopped and reported as an error",
  },
  TTS_ENGINE: {
    type: "string",
    default: "espeak",
    enum: ["espeak", "openai-compatible", "none"],
    description: "speech engine of this worker (none: text only)",
  },
  TTS_CONCURRENCY: {
    type: "integer",
    default: 1,
    minimum: 1,
    maximum: 32,
    description: "speech syntheses at once (eSpeak: one thread each)",
  },
  TTS_MAX_CHUNK_CHARS: {
    type: "integer",
    default: 1000,
    minimum: 100,
    description: "long texts are synthesized in sentence-aligned pieces of at most this size",
  },
  SPOKEN_REPLY_TTL_SECONDS: {
    type: "integer",
    default: 3600,
    minimum: 60,
    description:
      "how long the audio of a reply spoken with `speak` is kept (at most STATUS_TTL_SECONDS: the record that points at it is kept that long)",
  },
  TTS_OPENAI_BASE_URL: {
    type: "string",
    pattern: "^https?://",
    description: "openai-compatible speech server (POST {base}/v1/audio/speech)",
  },
  TTS_OPENAI_MODEL: { type: "string", default: "tts-1", description: "the speech server's model name" },
  TTS_OPENAI_VOICE_MAP: { type: "string", description: "JSON object: our voice id -> the server's voice name" },
  TTS_OPENAI_FORMATS: {
    type: "string",
    description: "comma-separated formats the server can produce (default mp3,wav,opus,flac,pcm)",
  },
  TTS_OPENAI_PCM_SAMPLE_RATE: {
    type: "integer",
    default: 24000,
    minimum: 8000,
    description: "sample rate of the server's pcm output",
  },
  TTS_OPENAI_TIMEOUT_MS: {
    type: "integer",
    default: 60000,
    minimum: 1000,
    description: "speech server request timeout",
  },
  ...WORKER_LAUNCH_ENV,
  METRICS_TOKEN: {
    type: "string",
    pattern: "^\\S{16,}$",
    description: "when set, GET /metrics needs Authorization: Bearer <METRICS_TOKEN> (16+ characters, no spaces)",
  },
  JOB_LOCK_MS: {
    type: "integer",
    default: 10000,
    minimum: 5000,
    description:
      "BullMQ lock duration, renewed every quarter of it; a killed worker's job runs again on another worker within this plus a quarter (the stalled check's interval)",
  },
  WEBHOOK_TIMEOUT_MS: {
    type: "integer",
    default: 10000,
    minimum: 100,
    description: "a webhook attempt's total deadline: connecting, the answer's headers and its body together",
  },
  WEBHOOK_CONCURRENCY: {
    type: "integer",
    default: 10,
    minimum: 1,
    maximum: 1000,
    description: "webhook deliveries one worker makes at once",
  },
  WEBHOOK_DNS_TIMEOUT_MS: {
    type: "integer",
    default: 3000,
    minimum: 10,
    description: "a webhook host's DNS lookup deadline (queries on the event loop, not libuv's thread pool)",
  },
  WEBHOOK_DNS_SERVERS: {
    type: "string",
    pattern: "^[^,\\s]+(,[^,\\s]+)*$",
    description: "DNS servers for webhook hosts, a comma list of ip or ip:port; unset: /etc/resolv.conf's",
  },
  WEBHOOK_BREAKER_FAILURES: {
    type: "integer",
    default: 5,
    minimum: 1,
    description: "failed attempts in a row to one address that pause it for that API key (circuit breaker)",
  },
  WEBHOOK_BREAKER_PAUSE_MS: {
    type: "integer",
    default: 300000,
    minimum: 100,
    description: "how long a paused address gets no attempt from that key; then one trial decides",
  },
} as const satisfies EnvSchema;

/** Derived from WORKER_ENV: a setting added there is typed here. */
export type WorkerConfig = ConfigOf<typeof WORKER_ENV>;

/**
 * A spoken reply's audio lives SPOKEN_REPLY_TTL_SECONDS, cut to the records' retention: audio whose
 * record is gone could never be fetched again (the route reads the record first), only take memory.
 */
export function spokenReplyTtlSeconds(
  config: Pick<WorkerConfig, "SPOKEN_REPLY_TTL_SECONDS" | "STATUS_TTL_SECONDS">,
): number {
  return Math.min(config.SPOKEN_REPLY_TTL_SECONDS, config.STATUS_TTL_SECONDS);
}

export function loadWorkerConfig(env: NodeJS.ProcessEnv): WorkerConfig {
  const config = loadConfig(WORKER_ENV, env);
  redisTargetOf(config); // refuses contradictory Redis settings at start-up
  if (config.LLM_ENGINE === "openai-compatible" && !config.MODELS_CONFIG && (!config.LLM_BASE_URL || !env.LLM_MODEL)) {
    throw new ConfigError(["LLM_ENGINE=openai-compatible needs LLM_BASE_URL and LLM_MODEL (the upstream model name)"]);
  }
  if (config.TTS_ENGINE === "openai-compatible" && !config.TTS_OPENAI_BASE_URL) {
    throw new ConfigError(["TTS_ENGINE=openai-compatible needs TTS_OPENAI_BASE_URL"]);
  }
  return config;
}
