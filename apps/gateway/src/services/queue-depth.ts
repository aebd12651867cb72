import type { Queue } from "bullmq";

/** The states of text jobs the fleet still owes an answer: queued, waiting for a retry, running. */
const BACKLOG_STATES = ["waiting", "prioritized", "delayed", "active"] as const;

/**
 * The text backlog as BullMQ counts it (one Lua call), refreshed in the background: backpressure
 * costs the submit path nothing, and since the figure is read rather than kept, nothing a cancel,
 * retry or failed enqueue does can make it drift. It may be up to one interval old, which is fine
 * for shedding load.
 */
export class QueueDepth {
  private backlog: number | null = null;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly queue: Pick<Queue, "getJobCounts">,
    private readonly intervalMs = 500,
    /** Jobs not counted (batch lines: at most BATCH_WINDOW a batch; they never refuse an interactive submit). */
    private readonly excluded: () => Promise<number> = () => Promise.resolve(0),
  ) {}

  start(): void {
    const refresh = () => void this.refresh().catch(() => undefined);
    refresh();
    this.timer = setInterval(refresh, this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Null until the first reading (and while Redis is away: then submits fail anyway). */
  get current(): number | null {
    return this.backlog;
  }

  async refresh(): Promise<number> {
    const [counts, excluded] = await Promise.all([this.queue.getJobCounts(...BACKLOG_STATES), this.excluded()]);
    const all = BACKLOG_STATES.reduce((sum, state) => sum + (counts[state] ?? 0), 0);
    this.backlog = Math.max(0, all - excluded);
    return this.backlog;
  }
}
