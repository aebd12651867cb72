import { DEFAULT_CHAT_LIMITS, DEFAULT_LIMITS } from "@chorus/contracts";
import {
  BUDGET_ENV,
  COMMON_ENV,
  ConfigError,
  GATEWAY_LISTEN_ENV,
  loadConfig,
  type ConfigOf,
  type EnvSchema,
} from "@chorus/platform/config";
import { redisTargetOf } from "@chorus/platform/redis";

export const GATEWAY_ENV = {
  ...COMMON_ENV,
  ...GATEWAY_LISTEN_ENV,
  HTTP_HEADERS_TIMEOUT_MS: {
    type: "integer",
    default: 10000,
    minimum: 100,
    description:
      "a client must send a request's headers within this time, else 408 and the connection is closed (cuts slowloris clients)",
  },
  HTTP_REQUEST_TIMEOUT_MS: {
    type: "integer",
    default: 30000,
    minimum: 100,
    description:
      "a client must send a whole request (headers and body) within this time, else 408; at least HTTP_HEADERS_TIMEOUT_MS (the answer's time is not counted)",
  },
  HTTP_KEEP_ALIVE_TIMEOUT_MS: {
    type: "integer",
    default: 65000,
    minimum: 1000,
    description:
      "an idle keep-alive connection is closed after this time; behind a load balancer, keep it above the balancer's idle timeout",
  },
  RATE_LIMIT_TEXT: {
    type: "integer",
    default: DEFAULT_LIMITS.text,
    minimum: 1,
    description: "text requests per key per model per window",
  },
  RATE_LIMIT_TTS: {
    type: "integer",
    default: DEFAULT_LIMITS.tts,
    minimum: 1,
    description: "speech requests per key per window",
  },
  RATE_LIMIT_STATUS: {
    type: "integer",
    default: DEFAULT_LIMITS.status,
    minimum: 1,
    description: "status polls per key per window (both status paths)",
  },
  RATE_LIMIT_WINDOW_MS: {
    type: "integer",
    default: 60000,
    minimum: 1000,
    description: "rate-limit window in milliseconds",
  },
  AUTH_FAILURE_LIMIT: {
    type: "integer",
    default: 30,
    minimum: 1,
    description: "failed authentications per client address per window before 429",
  },
  MAX_QUEUE_DEPTH: {
    type: "integer",
    default: 10000,
    minimum: 0,
    description:
      "text jobs queued, waiting for a retry or running (as BullMQ counts them) at which submissions get 503 with Retry-After (0: no limit)",
  },
  MAX_IN_FLIGHT_PER_KEY: {
    type: "integer",
    default: 100,
    minimum: 1,
    description:
      "text requests one API key may have waiting or running at once; one more gets 429 with Retry-After (a key's own `inflight` limit overrides it)",
  },
  MAX_PENDING_WEBHOOKS_PER_KEY: {
    type: "integer",
    default: 1000,
    minimum: 1,
    description:
      "webhook deliveries of one API key queued and not yet ended at which its submits with `webhook` get 429 (a key's own `webhooks` limit overrides it)",
  },
  MAX_BATCHES_PER_KEY: {
    type: "integer",
    default: 10,
    minimum: 1,
    description:
      "batches (POST /v1/batches) one API key may have in progress (not yet final) at once; one more gets 429 (a key's own `batches` limit overrides it)",
  },
  BATCH_WINDOW: {
    type: "integer",
    default: 4,
    minimum: 1,
    description:
      "lines of one batch fed to the text queue at once (queued or running); the feeders top a batch up as its lines end",
  },
  BATCH_WINDOW_SECONDS_FOR_TESTS: {
    type: "integer",
    default: 86400,
    minimum: 1,
    description:
      "for tests only: a batch's completion window in seconds (OpenAI's `24h`, the default, is the only one offered)",
  },
  MAX_STREAMS_PER_KEY: {
    type: "integer",
    default: 50,
    minimum: 1,
    description:
      "status streams (Accept: text/event-stream) and Prefer: wait holds one API key may have open at once, over all gateways; one more gets 429 (a key's own `streams` limit overrides it)",
  },
  MAX_STREAMS_PER_GATEWAY: {
    type: "integer",
    default: 2000,
    minimum: 1,
    description:
      "status streams and Prefer: wait holds one gateway keeps open, all keys together (~72 kB each); one more gets 503 with Retry-After",
  },
  ...BUDGET_ENV,
  MAX_COMPLETION_TOKENS: {
    type: "integer",
    default: DEFAULT_CHAT_LIMITS.maxCompletionTokens,
    minimum: 1,
    description:
      "the most tokens of a /v1 reply: max_tokens' bound, and where a reply without max_tokens stops if the model and its context have not stopped it first",
  },
  REDIS_WAIT_REPLICAS: {
    type: "integer",
    default: 0,
    minimum: 0,
    description:
      "a text submit is answered 200 only once this many replicas have its record and job (Redis WAIT); fewer in time: 503 with Retry-After (0: no wait)",
  },
  REDIS_WAIT_TIMEOUT_MS: {
    type: "integer",
    default: 100,
    minimum: 1,
    description: "how long a submit waits for REDIS_WAIT_REPLICAS replicas before its 503",
  },
  IDEMPOTENCY_TTL_SECONDS: {
    type: "integer",
    default: 86400,
    minimum: 60,
    description: "how long an Idempotency-Key is remembered",
  },
  KEY_CACHE_TTL_MS: {
    type: "integer",
    default: 5000,
    minimum: 0,
    description: "how long a gateway remembers a found API key (a revocation takes effect within it; 0: no cache)",
  },
  TTS_ENABLED: {
    type: "boolean",
    default: true,
    description: "serve text-to-speech (needs workers with a speech engine)",
  },
  TTS_TIMEOUT_MS: {
    type: "integer",
    default: 120000,
    minimum: 1000,
    description: "longest wait for a speech job before 503",
  },
  METRICS_TOKEN: {
    type: "string",
    pattern: "^\\S{16,}$",
    description: "when set, GET /metrics needs Authorization: Bearer <METRICS_TOKEN> (16+ characters, no spaces)",
  },
  ADMIN_TOKEN: {
    type: "string",
    pattern: "^\\S{32,}$",
    description:
      "when set, the admin API (/admin/keys) and the queues dashboard (/admin/queues) exist, for Authorization: Bearer <ADMIN_TOKEN> (32+ characters, no spaces); unset: they do not exist (answered as any unknown path)",
  },
  TRUST_PROXY: {
    type: "string",
    default: "loopback",
    description: "Express 'trust proxy' setting: which proxies may set X-Forwarded-For",
  },
  CORS_ORIGINS: {
    type: "string",
    pattern: "^ *(\\*|[A-Za-z][A-Za-z0-9+.-]*://[^\\s,/]+)( *, *[A-Za-z][A-Za-z0-9+.-]*://[^\\s,/]+)* *$",
    description:
      "browser origins allowed to call the API (CORS): a comma list of exact origins such as https://app.example.com, or * (unset: no CORS headers)",
  },
} as const satisfies EnvSchema;

/** Derived from GATEWAY_ENV: a setting added there is typed here. */
export type GatewayConfig = ConfigOf<typeof GATEWAY_ENV>;

export function loadGatewayConfig(env: NodeJS.ProcessEnv): GatewayConfig {
  const config = loadConfig(GATEWAY_ENV, env);
  const target = redisTargetOf(config); // refuses contradictory Redis settings at start-up
  // WAIT confirms the writes of one connection to one server; a cluster spreads a submit's record
  // and job over two nodes, each behind a connection the client keeps to itself.
  if ("cluster" in target && config.REDIS_WAIT_REPLICAS > 0) {
    throw new ConfigError([
      "REDIS_WAIT_REPLICAS: not supported with REDIS_CLUSTER_NODES (a submit's record and job are on different nodes); leave it 0",
    ]);
  }
  // Node refuses a headers timeout longer than the request timeout (it would never apply).
  if (config.HTTP_HEADERS_TIMEOUT_MS > config.HTTP_REQUEST_TIMEOUT_MS) {
    throw new ConfigError([
      "HTTP_HEADERS_TIMEOUT_MS: must be <= HTTP_REQUEST_TIMEOUT_MS (the headers are part of the request)",
    ]);
  }
  return config;
}
