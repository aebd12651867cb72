import { availableParallelism, homedir } from "node:os";
import { join } from "node:path";
import { COMMON_ENV, ConfigError, loadConfig, type CommonConfig, type EnvSchema } from "@chorus/platform";
import { DEFAULT_MODEL_URI } from "./engines/llm/model-resolver.js";

export const WORKER_ENV = {
  ...COMMON_ENV,
  MODELS_CONFIG: { type: "string", description: "path to a models configuration file (YAML or JSON); replaces the LLM_ENGINE/LLM_MODEL settings" },
  LLM_ENGINE: { type: "string", default: "llama", enum: ["llama", "openai-compatible"], description: "engine for all five models when there is no MODELS_CONFIG" },
  LLM_MODEL: { type: "string", default: DEFAULT_MODEL_URI, description: "llama: a .gguf path or hf:user/repo/file.gguf URI (downloaded once into MODELS_DIR); openai-compatible: the upstream model name" },
  LLM_BASE_URL: { type: "string", pattern: "^https?://", description: "openai-compatible: the server, e.g. http://vllm:8000/v1 (the key is read from LLM_API_KEY)" },
  LLM_CONTEXT_TOKENS: { type: "integer", minimum: 256, description: "openai-compatible: the upstream model's context window (default 8192)" },
  MODELS_DIR: { type: "string", default: join(homedir(), ".cache", "chorus", "models"), description: "model download cache" },
  LLM_THREADS: { type: "integer", default: availableParallelism(), minimum: 1, description: "llama.cpp CPU threads (default: the cores available)" },
  LLM_GPU: { type: "string", default: "false", enum: ["false", "auto"], description: "false: CPU only; auto: use CUDA/Vulkan/Metal when present" },
  LLM_CONTEXT_SIZE: { type: "integer", default: 4096, minimum: 256, description: "context tokens per sequence (clamped to the model's training context)" },
  WORKER_CONCURRENCY: { type: "integer", default: 2, minimum: 1, maximum: 64, description: "text jobs one worker runs at once (one context sequence each)" },
  PROGRESS_INTERVAL_MS: { type: "integer", default: 250, minimum: 50, description: "minimum time between progress writes of one job" },
  JOB_TIME_LIMIT_MS: { type: "integer", default: 300000, minimum: 1000, description: "a generation running longer is stopped and reported as an error" },
  JOB_LOCK_MS: { type: "integer", default: 30000, minimum: 5000, description: "BullMQ lock duration; a crashed worker's job is retried after it" },
} as const satisfies EnvSchema;

export interface WorkerConfig extends CommonConfig {
  MODELS_CONFIG?: string;
  LLM_ENGINE: "llama" | "openai-compatible";
  LLM_MODEL: string;
  LLM_BASE_URL?: string;
  LLM_CONTEXT_TOKENS?: number;
  MODELS_DIR: string;
  LLM_THREADS: number;
  LLM_GPU: "false" | "auto";
  LLM_CONTEXT_SIZE: number;
  WORKER_CONCURRENCY: number;
  PROGRESS_INTERVAL_MS: number;
  JOB_LOCK_MS: number;
  JOB_TIME_LIMIT_MS: number;
}

export function loadWorkerConfig(env: NodeJS.ProcessEnv): WorkerConfig {
  const config = loadConfig<WorkerConfig>(WORKER_ENV, env);
  if (config.LLM_ENGINE === "openai-compatible" && !config.MODELS_CONFIG && (!config.LLM_BASE_URL || !env.LLM_MODEL)) {
    throw new ConfigError(["LLM_ENGINE=openai-compatible needs LLM_BASE_URL and LLM_MODEL (the upstream model name)"]);
  }
  return config;
}
