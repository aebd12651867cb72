import type { Counter, Gauge, Registry } from "prom-client";
import { Gauge as GaugeMetric } from "prom-client";

/** The states a scrape reports; together they are the backlog a worker fleet has to work off. */
export const QUEUE_DEPTH_STATES = ["waiting", "active", "delayed"] as const;
export type QueueDepthState = (typeof QUEUE_DEPTH_STATES)[number];

/** Queue name -> job count per state. */
export type QueueDepths = Record<string, Partial<Record<QueueDepthState, number>>>;
export type QueueDepthReader = () => Promise<QueueDepths>;

/** What `readQueueDepths` needs of a BullMQ Queue (a Worker cannot count jobs; a Queue can). */
export interface CountableQueue {
  readonly name: string;
  getJobCounts(...types: (QueueDepthState | "prioritized")[]): Promise<Record<string, number>>;
}

/**
 * One `getJobCounts` per queue (a single Lua call each), labelled with the queue's name. Text jobs
 * wait by their turn (BullMQ's `prioritized` state, see fair-turns.ts): they count as waiting.
 */
export function readQueueDepths(queues: readonly CountableQueue[]): QueueDepthReader {
  return async () => {
    const entries = await Promise.all(
      queues.map(async (queue) => {
        const { prioritized = 0, ...counts } = await queue.getJobCounts(...QUEUE_DEPTH_STATES, "prioritized");
        return [queue.name, { ...counts, waiting: (counts.waiting ?? 0) + prioritized }] as const;
      }),
    );
    return Object.fromEntries(entries);
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`queue depth read took longer than ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * `queue_depth{queue,state}`, read from Redis when Prometheus scrapes rather than on a timer, so
 * an idle process does no work for it. A scrape waits at most `timeoutMs`, and at most one read
 * is in flight: while Redis is away (worker connections queue commands until it returns), scrapes
 * share the pending read instead of piling up new ones. A failed or late read clears the gauge —
 * an absent series is honest, a stale number is not — and counts in `queue_depth_read_errors_total`
 * (which a scrape reads concurrently with this gauge, so it shows the failures of earlier scrapes).
 */
export function registerQueueDepth(
  registry: Registry,
  reader: QueueDepthReader | undefined,
  timeoutMs: number,
  errors: Counter,
): Gauge<"queue" | "state"> {
  let inFlight: Promise<QueueDepths> | null = null;
  const read = (source: QueueDepthReader) => (inFlight ??= source().finally(() => (inFlight = null)));
  const gauge: Gauge<"queue" | "state"> = new GaugeMetric({
    name: "queue_depth",
    help: "Jobs in each queue by state (waiting, active, delayed), read from Redis on scrape",
    labelNames: ["queue", "state"] as const,
    registers: [registry],
    collect: async () => {
      if (!reader) return;
      try {
        const depths = await withTimeout(read(reader), timeoutMs);
        gauge.reset();
        for (const [queue, counts] of Object.entries(depths)) {
          for (const state of QUEUE_DEPTH_STATES) {
            const count = counts[state];
            if (typeof count === "number") gauge.set({ queue, state }, count);
          }
        }
      } catch {
        gauge.reset();
        errors.inc();
      }
    },
  });
  return gauge;
}
