import type { ConfigOf, EnvSchema } from "./load-config.js";

/** Settings every process reads. */
export const COMMON_ENV = {
  REDIS_URL: { type: "string", default: "redis://127.0.0.1:6379", description: "Redis connection URL (redis:// or rediss://, may carry user:password)" },
  REDIS_PREFIX: { type: "string", default: "chorus", pattern: "^[A-Za-z0-9_.-]+$", description: "prefix of every Redis key this service writes" },
  LOG_LEVEL: { type: "string", default: "info", enum: ["error", "warn", "info", "http", "debug"], description: "winston log level" },
  LOG_FORMAT: { type: "string", default: "json", enum: ["json", "pretty"], description: "json for machines, pretty for people" },
  STATUS_TTL_SECONDS: { type: "integer", default: 86400, minimum: 60, description: "how long status records (and replies) are kept" },
  AUDIO_TTL_SECONDS: { type: "integer", default: 300, minimum: 10, description: "how long synthesized audio may wait in Redis for its gateway" },
} as const satisfies EnvSchema;

export type CommonConfig = ConfigOf<typeof COMMON_ENV>;
