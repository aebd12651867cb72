import type { ConfigOf, EnvSchema } from "./load-config.js";

/** Settings every process reads. */
export const COMMON_ENV = {
  // No default in the schema: REDIS_URL set together with REDIS_SENTINELS or REDIS_CLUSTER_NODES is an error
  // (redisTargetOf), which a default would hide; unset, it means redis://127.0.0.1:6379.
  REDIS_URL: {
    type: "string",
    pattern: "^rediss?://",
    description:
      "Redis connection URL (redis:// or rediss://, may carry user:password); default redis://127.0.0.1:6379",
  },
  REDIS_SENTINELS: {
    type: "string",
    description:
      "instead of REDIS_URL: the Sentinel addresses, a comma list of host:port; every connection asks them for the master",
  },
  REDIS_CLUSTER_NODES: {
    type: "string",
    description:
      "instead of REDIS_URL: some nodes of a Redis Cluster, a comma list of host:port; the client learns the rest and follows the slots",
  },
  REDIS_SENTINEL_MASTER: {
    type: "string",
    description: "the master's name in the sentinels' configuration (with REDIS_SENTINELS)",
  },
  REDIS_SENTINEL_PASSWORD: {
    type: "string",
    description: "password of the sentinels themselves, if they require one (with REDIS_SENTINELS)",
  },
  REDIS_USERNAME: {
    type: "string",
    description:
      "ACL user on the Redis servers (with REDIS_SENTINELS or REDIS_CLUSTER_NODES; with REDIS_URL it is in the URL)",
  },
  REDIS_PASSWORD: {
    type: "string",
    description:
      "password of the Redis servers (with REDIS_SENTINELS or REDIS_CLUSTER_NODES; with REDIS_URL it is in the URL)",
  },
  REDIS_PREFIX: {
    type: "string",
    default: "chorus",
    pattern: "^[A-Za-z0-9_.-]+$",
    description: "prefix of every Redis key this service writes",
  },
  INSTANCE_ID: {
    type: "string",
    pattern: "^[A-Za-z0-9-]{1,64}$",
    description:
      "set by npm start: a per-run id the probes answer in the X-Chorus-Instance header, so the launcher knows it asks its own process",
  },
  LOG_LEVEL: {
    type: "string",
    default: "info",
    enum: ["error", "warn", "info", "http", "debug"],
    description: "winston log level",
  },
  LOG_FORMAT: {
    type: "string",
    default: "json",
    enum: ["json", "pretty"],
    description: "json for machines, pretty for people",
  },
  STATUS_TTL_SECONDS: {
    type: "integer",
    default: 86400,
    minimum: 60,
    description: "how long status records (and replies) are kept",
  },
  AUDIO_TTL_SECONDS: {
    type: "integer",
    default: 300,
    minimum: 10,
    description: "how long synthesized audio may wait in Redis for its gateway",
  },
  WEBHOOK_SECRET: {
    type: "string",
    pattern: "^whsec_[A-Za-z0-9+/]{22,}={0,2}$",
    description:
      "Standard Webhooks secret (whsec_ + base64 of 16+ random bytes) signing only for API keys made before keys had their own; unset: those keys' submits with `webhook` are refused",
  },
  WEBHOOK_ALLOW_PRIVATE: {
    type: "boolean",
    default: false,
    description: "allow webhooks to loopback, private, link-local and metadata addresses (tests, private networks)",
  },
  WEBHOOK_ATTEMPTS: {
    type: "integer",
    default: 8,
    minimum: 1,
    maximum: 20,
    description: "delivery attempts of one webhook (the first included)",
  },
  WEBHOOK_BACKOFF_MS: {
    type: "integer",
    default: 30000,
    minimum: 10,
    description: "delay before the second attempt; doubled for each next one (8 attempts: about 1 h in all)",
  },
} as const satisfies EnvSchema;

export type CommonConfig = ConfigOf<typeof COMMON_ENV>;
