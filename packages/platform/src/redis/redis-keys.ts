import { QUEUES } from "@chorus/contracts";

/**
 * The one place that builds Redis key names, each under the configured prefix. Hash tags (in
 * braces) keep every script's keys in one Cluster slot while the load spreads: one tag per queue
 * (BullMQ's keys and the queue's own sets: text turns, webhook turns), per request (record, audio),
 * per API key (index, usage, idempotency), and one for the key registry. On one Redis they change nothing.
 */
export interface RedisKeys {
  /**
   * Prefix BullMQ puts before its own `<queue>:<...>` keys of `queue`: hash-tagged by the queue, as BullMQ's cluster
   * guide asks.
   */
  bullPrefix(queue: string): string;
  status(requestId: string): string;
  apiKeyBySecretHash(secretHash: string): string;
  /**
   * Cache-aware routing (apps/worker/src/routing): the worker id that holds the prompt of one conversation prefix
   * (a hash), with expiry. Every routing key shares one hash tag, so a script reads many of them at once.
   */
  routingPrefix(prefixHash: string): string;
  /** Routing: who runs one routed text job (`handed:<worker>`, `buffer:<worker>`, `shared:<worker>`). */
  routingClaim(requestId: string): string;
  /** Routing: the lease of the worker running a routed job's hand-over copy (its id), renewed while it runs. */
  routingLease(requestId: string): string;
  /** Routing: a live worker's heartbeat (its slots), expiring a few seconds after the worker stops beating. */
  routingWorkerAlive(workerId: string): string;
  /** Routing: set of the ids of workers that have a hand-over queue (what the sweep of dead workers' queues reads). */
  routingWorkers(): string;
  /** Held (SET NX PX) by the one worker that runs the current sweep of dead workers' hand-over queues. */
  routingSweepLock(): string;
  /** Hash: key id -> secret hash (for list and revoke by id). */
  apiKeyIndex(): string;
  /** Hash: key name -> key id (names are unique). */
  apiKeyNames(): string;
  /** Hash of one key's webhook signing secrets: `current`; during a rotation's overlap `previous`, `previousUntil`. */
  apiKeyWebhookSecrets(keyId: string): string;
  /** Hash: key id -> when it last authenticated (ISO; written at most once a minute per gateway). */
  apiKeyLastUsed(): string;
  /**
   * Marker (SET NX with expiry) that one finished job has been metered into its key's usage: what makes the metering
   * count a job once however often its end is told (usage/usage-meter.ts). Tagged by the key, like its usage days.
   */
  usageMetered(keyId: string, jobId: string): string;
  /** Webhook queue: hash of `serving` (the turn last started) and, per API key id, its latest delivery's turn. */
  webhookTurns(): string;
  /** Webhook queue: sorted set of one API key's deliveries queued and not yet ended (request ids, by queueing time). */
  webhookPending(keyId: string): string;
  /** Webhook queue: hash of one API key's receivers that failed lately (address -> circuit state, JSON). */
  webhookBreakers(keyId: string): string;
  /** BullMQ's sorted set of the webhook queue's prioritized (waiting) jobs: empty when no delivery waits. */
  webhookQueueWaiting(): string;
  /** Prefix rate-limit-redis puts before a limiter's client keys. */
  rateLimit(limiter: string): string;
  /** Pub/sub channel on which gateways tell every worker to stop a job. */
  cancelChannel(): string;
  /** Pub/sub channel on which the id of every request whose record turns final is published. */
  statusFinalChannel(): string;
  /** Pub/sub channel on which the id of every request whose record changes (start, progress, finish) is published. */
  statusChangedChannel(): string;
  /** Pub/sub channel on which workers publish the growth of replies a client streams (ReplyDelta). */
  replyDeltaChannel(): string;
  /** Hash: model id -> average reply length in tokens, learned by the workers. */
  replyLengthStats(): string;
  /** Hash: model id -> JSON EngineFeatures of the engine serving it, published by the workers (model-features.ts). */
  modelFeatures(): string;
  /** Counter handing each accepted text job its ticket: the order of the waiting set below. */
  textJobTickets(): string;
  /**
   * Sorted set of the ids of text jobs accepted and not yet started, by turn and ticket (queue position: see
   * fair-turns.ts).
   */
  textJobsWaiting(): string;
  /**
   * List whose length is the number of text jobs waiting to start (one token each, not their ids):
   * what list-length autoscalers (KEDA's redis scaler, LLEN) read, since BullMQ keeps prioritized
   * jobs in a sorted set rather than its wait list.
   */
  textJobsBacklog(): string;
  /** Hash: `turn` (the turn the workers are serving) and, per API key id, the turn of that key's latest request. */
  textQueueTurns(): string;
  /** Hash: API key id -> its text requests not yet final (the in-flight cap). */
  textRequestsInFlight(): string;
  /** Hash: id of a text request not yet final -> its API key id (what a finish takes off that key's count). */
  textRequestOwners(): string;
  /** Sorted set of the ids of text requests not yet final, by acceptance time (ms): what the lost-job sweep checks. */
  textRequestsUnfinished(): string;
  /**
   * Sorted set of the ids of one API key's text requests, by acceptance time (ms): what
   * GET /api/v2/requests lists. Written with the record, trimmed to the records' retention.
   */
  textRequestsOfApiKey(keyId: string): string;
  /** Held (SET NX PX) by the one worker that runs the current lost-job sweep. */
  lostJobSweepLock(): string;
  /** Sorted set: id of a text request with a queue deadline (`maxQueueMs`) -> that deadline (ms), for its sweep. */
  textQueueDeadlines(): string;
  /** Held (SET NX PX) by the one worker that runs the current queue-deadline sweep. */
  queueDeadlineSweepLock(): string;
  /** BullMQ's hash of one job (its layout: `<bullPrefix(queue)>:<queue>:<jobId>`), for the sweep to check it exists. */
  bullJob(queue: string, jobId: string): string;
  /** Hash: the average text job time (avgJobSeconds: scheduler/queue-stats.ts), learned by the workers. */
  textJobStats(): string;
  /**
   * Hash: worker id -> its slots and expiry (workerSlotsEntry, scheduler/queue-stats.ts), refreshed by each live
   * worker.
   */
  workerSlots(): string;
  /** Sorted set: id of a file the API key holds (OpenAI's Files API) -> its expiry (ms). */
  filesOfApiKey(keyId: string): string;
  /**
   * Batch API (packages/platform/src/batches): one batch's hash (its object's fields and counts). Its
   * keys below share the batch's hash tag, so one script counts a line and moves the batch on.
   */
  batch(batchId: string): string;
  /** List: a batch's input lines (JSON), in order. */
  batchLines(batchId: string): string;
  /** Hash: line index -> how it ended ('' : its record says; else a JSON error of a line that never ran). */
  batchLinesDone(batchId: string): string;
  /** Set: indices of a batch's lines fed to the queue and not yet counted. */
  batchLinesFed(batchId: string): string;
  /** Held (SET NX PX) by the one process feeding or finishing one batch. */
  batchLock(batchId: string): string;
  /** Sorted set: id of a batch of the API key -> its creation (ms): what GET /v1/batches lists. */
  batchesOfApiKey(keyId: string): string;
  /** Set: ids of the key's batches not yet final (its cap of batches in progress). */
  batchesActiveOfApiKey(keyId: string): string;
  /** Set: ids of every batch not yet final, for the feeders' once-a-second loop. */
  batchesActive(): string;
  /** Pub/sub channel on which the id of a batch is published when one of its lines ends (its feeder tops up). */
  batchFeedChannel(): string;
  /** Hash: one file's metadata (filename, purpose, bytes, createdAt, expiresAt); beside its owner's set. */
  file(keyId: string, fileId: string): string;
  /** String: one file's bytes; beside its owner's set. */
  fileContent(keyId: string, fileId: string): string;
  /** A speech job's encoded audio, one string read piece by piece (deleted after delivery, TTL as backstop). */
  audio(requestId: string): string;
  /** JSON SpeechJobResult of that audio, written after the audio: its presence means the audio is whole. */
  audioMeta(requestId: string): string;
  /**
   * Redis Stream of a streamed speech job: its encoded pieces as they are made, then an end or a
   * failure entry, for the gateway to read with XREAD BLOCK (same hash tag as the audio: one MULTI
   * writes a piece to both). Expires with the audio; deleted once delivered.
   */
  audioStream(requestId: string): string;
  /** Sorted set: the open streams and waits (status streams, `Prefer: wait`) of one API key, by expiry (ms). */
  openStreamsOfApiKey(keyId: string): string;
  /** "bodyHash:requestId" of a POST sent with an Idempotency-Key, per API key. */
  idempotency(keyId: string, idempotencyKey: string): string;
  /** Hash: what one API key used on one UTC day (`YYYY-MM-DD`): requests admitted, and what its jobs used by model. */
  apiKeyUsage(keyId: string, day: string): string;
  /**
   * Hash: one API key's usage-budget counters in one UTC period (`YYYY-MM-DD` or `YYYY-MM`): tokens
   * and audio ms used, and held by requests not yet finished. Tagged by the key, like its hold entries.
   */
  budgetPeriod(keyId: string, period: string): string;
  /** Hash: what one request holds of its key's usage budgets, then `settled` once it has been settled. */
  budgetHold(keyId: string, requestId: string): string;
}

/** The hash tag of one queue: BullMQ's keys of that queue and the queue's own sets share its slot. */
const queueTag = (queue: string) => `{${queue}}`;

export function redisKeys(prefix: string): RedisKeys {
  const bullPrefix = (queue: string) => `${prefix}:bull:${queueTag(queue)}`;
  const textQueue = `${prefix}:text-queue:${queueTag(QUEUES.text)}`;
  const registry = `${prefix}:apikeys:{registry}`;
  const routing = `${prefix}:routing:{routing}`;
  const webhooks = `${prefix}:webhooks:${queueTag(QUEUES.webhooks)}`;
  return {
    bullPrefix,
    status: (requestId) => `${prefix}:status:{${requestId}}`,
    apiKeyBySecretHash: (secretHash) => `${registry}:secret:${secretHash}`,
    apiKeyIndex: () => `${registry}:ids`,
    routingPrefix: (prefixHash) => `${routing}:prefix:${prefixHash}`,
    routingClaim: (requestId) => `${routing}:claim:${requestId}`,
    routingLease: (requestId) => `${routing}:lease:${requestId}`,
    routingWorkerAlive: (workerId) => `${routing}:alive:${workerId}`,
    routingWorkers: () => `${routing}:workers`,
    routingSweepLock: () => `${routing}:sweep-lock`,
    apiKeyNames: () => `${registry}:names`,
    apiKeyWebhookSecrets: (keyId) => `${registry}:webhook-secrets:${keyId}`,
    apiKeyLastUsed: () => `${registry}:last-used`,
    usageMetered: (keyId, jobId) => `${prefix}:usage-metered:{${keyId}}:${jobId}`,
    webhookTurns: () => `${webhooks}:turns`,
    webhookPending: (keyId) => `${webhooks}:pending:${keyId}`,
    webhookBreakers: (keyId) => `${webhooks}:breakers:${keyId}`,
    webhookQueueWaiting: () => `${bullPrefix(QUEUES.webhooks)}:${QUEUES.webhooks}:prioritized`,
    rateLimit: (limiter) => `${prefix}:rl:${limiter}:`,
    cancelChannel: () => `${prefix}:cancel`,
    statusFinalChannel: () => `${prefix}:status-final`,
    statusChangedChannel: () => `${prefix}:status-changed`,
    replyDeltaChannel: () => `${prefix}:reply-delta`,
    replyLengthStats: () => `${prefix}:stats:reply-tokens`,
    modelFeatures: () => `${prefix}:model-features`,
    textJobTickets: () => `${textQueue}:tickets`,
    textJobsWaiting: () => `${textQueue}:waiting`,
    textQueueTurns: () => `${textQueue}:turns`,
    textJobsBacklog: () => `${textQueue}:backlog`,
    textRequestsInFlight: () => `${textQueue}:in-flight`,
    textRequestOwners: () => `${textQueue}:owners`,
    textRequestsUnfinished: () => `${textQueue}:unfinished`,
    textRequestsOfApiKey: (keyId) => `${prefix}:text-requests:{${keyId}}`,
    lostJobSweepLock: () => `${prefix}:lock:lost-job-sweep`,
    textQueueDeadlines: () => `${textQueue}:deadlines`,
    queueDeadlineSweepLock: () => `${prefix}:lock:queue-deadline-sweep`,
    bullJob: (queue, jobId) => `${bullPrefix(queue)}:${queue}:${jobId}`,
    textJobStats: () => `${textQueue}:job-stats`,
    workerSlots: () => `${textQueue}:worker-slots`,
    filesOfApiKey: (keyId) => `${prefix}:files:{${keyId}}`,
    batch: (batchId) => `${prefix}:batch:{${batchId}}`,
    batchLines: (batchId) => `${prefix}:batch-lines:{${batchId}}`,
    batchLinesDone: (batchId) => `${prefix}:batch-done:{${batchId}}`,
    batchLinesFed: (batchId) => `${prefix}:batch-fed:{${batchId}}`,
    batchLock: (batchId) => `${prefix}:batch-lock:{${batchId}}`,
    batchesOfApiKey: (keyId) => `${prefix}:batches:{${keyId}}`,
    batchesActiveOfApiKey: (keyId) => `${prefix}:batches-active:{${keyId}}`,
    batchesActive: () => `${prefix}:batches-active`,
    batchFeedChannel: () => `${prefix}:batch-feed`,
    file: (keyId, fileId) => `${prefix}:file:{${keyId}}:${fileId}`,
    fileContent: (keyId, fileId) => `${prefix}:file-content:{${keyId}}:${fileId}`,
    audio: (requestId) => `${prefix}:audio:{${requestId}}`,
    audioMeta: (requestId) => `${prefix}:audio-meta:{${requestId}}`,
    audioStream: (requestId) => `${prefix}:audio-stream:{${requestId}}`,
    openStreamsOfApiKey: (keyId) => `${prefix}:open-streams:{${keyId}}`,
    idempotency: (keyId, idempotencyKey) => `${prefix}:idempotency:{${keyId}}:${idempotencyKey}`,
    apiKeyUsage: (keyId, day) => `${prefix}:usage:{${keyId}}:${day}`,
    budgetPeriod: (keyId, period) => `${prefix}:budget:{${keyId}}:${period}`,
    budgetHold: (keyId, requestId) => `${prefix}:budget-hold:{${keyId}}:${requestId}`,
  };
}
