/**
 * The one place that builds Redis key names. Every key this service writes starts with the
 * configured prefix, so several deployments (or test runs) can share one Redis.
 */
export interface RedisKeys {
  /** Prefix BullMQ puts before its own `<queue>:<...>` keys. */
  readonly bullPrefix: string;
  status(requestId: string): string;
  apiKeyBySecretHash(secretHash: string): string;
  /** Hash: key id -> secret hash (for list and revoke by id). */
  apiKeyIndex(): string;
  /** Hash: key name -> key id (names are unique). */
  apiKeyNames(): string;
  /** Prefix rate-limit-redis puts before a limiter's client keys. */
  rateLimit(limiter: string): string;
  /** Pub/sub channel on which gateways tell every worker to stop a job. */
  cancelChannel(): string;
  /** Hash: model id -> average reply length in tokens, learned by the workers. */
  replyLengthStats(): string;
  /** Counters of text jobs accepted and of those that left the queue (queue position). */
  textJobsAccepted(): string;
  textJobsLeftQueue(): string;
  /** Hash: avgJobSeconds of text jobs, learned by the workers. */
  textJobStats(): string;
  /** Hash: worker id -> "concurrency:expiresAtMs", refreshed by each live worker. */
  workerSlots(): string;
  /** A speech job's encoded audio, waiting for its gateway (deleted on delivery, TTL as backstop). */
  audio(requestId: string): string;
  /** Hash {audio, meta}: delivered speech kept for retries that carry the same Idempotency-Key. */
  keptAudio(requestId: string): string;
  /** "bodyHash:requestId" of a POST sent with an Idempotency-Key, per API key. */
  idempotency(keyId: string, idempotencyKey: string): string;
}

export function redisKeys(prefix: string): RedisKeys {
  return {
    bullPrefix: `${prefix}:bull`,
    status: (requestId) => `${prefix}:status:${requestId}`,
    apiKeyBySecretHash: (secretHash) => `${prefix}:apikey:${secretHash}`,
    apiKeyIndex: () => `${prefix}:apikeys`,
    apiKeyNames: () => `${prefix}:apikey-names`,
    rateLimit: (limiter) => `${prefix}:rl:${limiter}:`,
    cancelChannel: () => `${prefix}:cancel`,
    replyLengthStats: () => `${prefix}:stats:reply-tokens`,
    textJobsAccepted: () => `${prefix}:queue-tickets:text:accepted`,
    textJobsLeftQueue: () => `${prefix}:queue-tickets:text:left`,
    textJobStats: () => `${prefix}:stats:text-jobs`,
    workerSlots: () => `${prefix}:worker-slots`,
    audio: (requestId) => `${prefix}:audio:${requestId}`,
    keptAudio: (requestId) => `${prefix}:kept-audio:${requestId}`,
    idempotency: (keyId, idempotencyKey) => `${prefix}:idempotency:${keyId}:${idempotencyKey}`,
  };
}
