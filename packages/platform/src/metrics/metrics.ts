import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";
import { registerQueueDepth, type QueueDepthReader } from "./queue-depth.js";

export type ServiceName = "gateway" | "worker";
/**
 * `retried`: an attempt failed and BullMQ will try the job again; `lost`: the lost-job sweep found a
 * record whose job had vanished and closed it; the others are final outcomes of an attempt.
 */
export type JobOutcome = "completed" | "failed" | "cancelled" | "retried" | "lost" | "queue_timeout";

export interface MetricsOptions {
  /** Called on each scrape for `queue_depth`; without it the gauge has no series. */
  queueDepth?: QueueDepthReader;
  /** Longest a scrape waits for `queueDepth` (default 1000 ms). */
  queueDepthTimeoutMs?: number;
}

interface ServiceMetrics {
  /** This service's own registry: never prom-client's global one, so apps and tests in one process do not clash. */
  readonly registry: Registry;
  /** The Content-Type of `render()`'s text. */
  readonly contentType: string;
  /** The Prometheus text exposition of every metric in `registry`. */
  render(): Promise<string>;
}

export interface GatewayMetrics extends ServiceMetrics {
  readonly service: "gateway";
  /** `route` must be a route pattern (or "unmatched"), never a raw URL: every value is a new series. */
  recordHttpRequest(method: string, route: string, status: number, seconds: number): void;
  recordRateLimitRejection(operation: string): void;
  /** A request refused (429 BUDGET_EXCEEDED) by a key's usage budget: `budget` names it (tokens_day, ...). */
  recordBudgetRefusal(budget: string): void;
}

export interface WorkerMetrics extends ServiceMetrics {
  readonly service: "worker";
  recordJob(queue: string, outcome: JobOutcome): void;
  /** One finished generation: tokens generated and the seconds the worker spent on it. */
  recordGeneration(model: string, tokens: number, seconds: number): void;
  /** One finished generation's prompt: tokens read, and of those the ones the engine reused from its cache. */
  recordPromptCache(model: string, promptTokens: number, cachedTokens: number): void;
  /** One finished synthesis; unknown durations (null) are left out rather than counted as 0. */
  recordSpeech(format: string, audioSeconds: number | null, synthesisSeconds: number | null): void;
  /**
   * One webhook attempt's outcome: delivered, retried, paused, or why the delivery ended (gone, refused,
   * unsigned, failed, expired).
   */
  recordWebhook(outcome: string): void;
  /** A key's receiver address paused by its circuit breaker, or resumed after a successful trial. */
  recordWebhookBreaker(change: "paused" | "closed"): void;
  /** One cache-aware routing decision on a text job this worker took from the shared queue (RoutingDecision). */
  recordRouting(decision: string): void;
  /** One finished job as metered into its key's usage (once per job): its tokens and audio, by model. */
  recordUsage(job: MeteredUse): void;
}

/** What recordUsage reads of a metered job (usage/usage-meter.ts's FinishedJob). */
export interface MeteredUse {
  model: string;
  promptTokens?: number;
  cachedPromptTokens?: number;
  completionTokens?: number;
  audioSeconds?: number;
}

// 1 ms to 10 s: status polls take a millisecond or two, submissions a few, speech waits seconds.
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
// From a CPU-bound small model (a few tokens/s) to a GPU server (hundreds).
const TOKEN_RATE_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];
// Up to JOB_TIME_LIMIT_MS's default of 300 s.
const GENERATION_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const SYNTHESIS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

function baseMetrics(options: MetricsOptions): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const readErrors = new Counter({
    name: "queue_depth_read_errors_total",
    help: "Scrapes whose queue depth read failed or timed out",
    registers: [registry],
  });
  registerQueueDepth(registry, options.queueDepth, options.queueDepthTimeoutMs ?? 1000, readErrors);
  return { registry, contentType: registry.contentType, render: () => registry.metrics() };
}

function gatewayMetrics(options: MetricsOptions): GatewayMetrics {
  const base = baseMetrics(options);
  const registers = [base.registry];
  const labelNames = ["method", "route", "status"] as const;
  const requests = new Counter({
    name: "http_requests_total",
    help: "HTTP requests answered, by method, route pattern and status",
    labelNames,
    registers,
  });
  const duration = new Histogram({
    name: "http_request_duration_seconds",
    help: "Time to answer an HTTP request, by method, route pattern and status",
    labelNames,
    buckets: HTTP_BUCKETS,
    registers,
  });
  const rejections = new Counter({
    name: "rate_limit_rejections_total",
    help: "Requests refused with 429 because a rate-limit budget was spent, by operation",
    labelNames: ["operation"] as const,
    registers,
  });
  // By budget, never by key: one series per key would grow with the keys (see docs/usage.md).
  const budgetRefusals = new Counter({
    name: "budget_refusals_total",
    help: "Requests refused with 429 BUDGET_EXCEEDED because a key's usage budget was spent, by budget (tokens_day, tokens_month, audio_seconds_day, audio_seconds_month)",
    labelNames: ["budget"] as const,
    registers,
  });
  return {
    ...base,
    service: "gateway",
    recordBudgetRefusal: (budget) => budgetRefusals.inc({ budget }),
    recordHttpRequest: (method, route, status, seconds) => {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      duration.observe(labels, seconds);
    },
    recordRateLimitRejection: (operation) => rejections.inc({ operation }),
  };
}

function workerMetrics(options: MetricsOptions): WorkerMetrics {
  const base = baseMetrics(options);
  const registers = [base.registry];
  const model = ["model"] as const;
  const format = ["format"] as const;
  const jobs = new Counter({
    name: "jobs_total",
    help: "Job attempts by queue and outcome (completed, failed, cancelled, retried), jobs found lost by the sweep (lost), and requests ended by their queue deadline before they started (queue_timeout)",
    labelNames: ["queue", "outcome"] as const,
    registers,
  });
  const tokens = new Counter({
    name: "generation_tokens_total",
    help: "Tokens generated, by model",
    labelNames: model,
    registers,
  });
  const tokenRate = new Histogram({
    name: "generation_tokens_per_second",
    help: "Tokens per second of each finished generation, by model",
    labelNames: model,
    buckets: TOKEN_RATE_BUCKETS,
    registers,
  });
  const generation = new Histogram({
    name: "generation_duration_seconds",
    help: "Time the worker spent on each finished generation, by model",
    labelNames: model,
    buckets: GENERATION_BUCKETS,
    registers,
  });
  const promptTokens = new Counter({
    name: "generation_prompt_tokens_total",
    help: "Prompt tokens of finished generations, by model",
    labelNames: model,
    registers,
  });
  const cachedTokens = new Counter({
    name: "generation_cached_prompt_tokens_total",
    help: "Prompt tokens the engine reused from its cache instead of reading them, by model (cache hit share: this / generation_prompt_tokens_total)",
    labelNames: model,
    registers,
  });
  const audio = new Counter({
    name: "speech_audio_seconds_total",
    help: "Seconds of audio synthesized, by format",
    labelNames: format,
    registers,
  });
  const synthesis = new Histogram({
    name: "speech_synthesis_duration_seconds",
    help: "Time to synthesize and encode each speech job, by format",
    labelNames: format,
    buckets: SYNTHESIS_BUCKETS,
    registers,
  });
  const webhooks = new Counter({
    name: "webhook_deliveries_total",
    help: "Webhook attempts by outcome: delivered, retried, paused (not made: the key's address is paused), or the end of a delivery that was not (gone, refused, unsigned, failed, expired)",
    labelNames: ["outcome"] as const,
    registers,
  });
  const breakers = new Counter({
    name: "webhook_breaker_changes_total",
    help: "A key's webhook address paused after failing too often (to=paused), or resumed after a successful trial (to=closed)",
    labelNames: ["to"] as const,
    registers,
  });
  const routing = new Counter({
    name: "routing_decisions_total",
    help: "Cache-aware routing of the text jobs this worker took from the shared queue: preferred_here, handed_over, preferred_busy, no_match, stolen (handed over but not started in time), taken_over (its runner died)",
    labelNames: ["decision"] as const,
    registers,
  });
  const usage = usageCounters(registers);
  return {
    ...base,
    service: "worker",
    recordUsage: usage,
    recordRouting: (decision) => routing.inc({ decision }),
    recordWebhook: (outcome) => webhooks.inc({ outcome }),
    recordWebhookBreaker: (change) => breakers.inc({ to: change }),
    recordJob: (queue, outcome) => jobs.inc({ queue, outcome }),
    recordGeneration: (name, count, seconds) => {
      tokens.inc({ model: name }, count);
      generation.observe({ model: name }, seconds);
      if (seconds > 0) tokenRate.observe({ model: name }, count / seconds);
    },
    recordPromptCache: (name, prompt, cached) => {
      promptTokens.inc({ model: name }, prompt);
      cachedTokens.inc({ model: name }, cached);
    },
    recordSpeech: (name, audioSeconds, synthesisSeconds) => {
      if (audioSeconds !== null) audio.inc({ format: name }, audioSeconds);
      if (synthesisSeconds !== null) synthesis.observe({ format: name }, synthesisSeconds);
    },
  };
}

/**
 * Totals of what keys' finished jobs used, as their usage meters it (each job once), by model and
 * never by key: a label per key would make a series per key and model, growing with every key
 * issued; per-key figures are in Redis (GET /admin/usage), where they belong.
 */
function usageCounters(registers: Registry[]): (job: MeteredUse) => void {
  const tokens = new Counter({
    name: "usage_tokens_total",
    help: "Tokens of finished requests as metered into keys' usage, by model and kind (prompt, cached_prompt, completion); not by key (cardinality: GET /admin/usage has that)",
    labelNames: ["model", "kind"] as const,
    registers,
  });
  const audio = new Counter({
    name: "usage_audio_seconds_total",
    help: "Seconds of audio of finished requests as metered into keys' usage, by model (speech: its engine); not by key",
    labelNames: ["model"] as const,
    registers,
  });
  return (job) => {
    const add = (kind: string, value = 0) => value > 0 && tokens.inc({ model: job.model, kind }, value);
    add("prompt", job.promptTokens);
    add("cached_prompt", job.cachedPromptTokens);
    add("completion", job.completionTokens);
    if ((job.audioSeconds ?? 0) > 0) audio.inc({ model: job.model }, job.audioSeconds);
  };
}

/** Prometheus metrics of one service, in a registry of its own, with Node's process metrics. */
export function createMetrics(service: "gateway", options?: MetricsOptions): GatewayMetrics;
export function createMetrics(service: "worker", options?: MetricsOptions): WorkerMetrics;
export function createMetrics(service: ServiceName, options: MetricsOptions = {}): GatewayMetrics | WorkerMetrics {
  return service === "gateway" ? gatewayMetrics(options) : workerMetrics(options);
}
