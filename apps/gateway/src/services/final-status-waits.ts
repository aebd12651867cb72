import type { Redis } from "ioredis";

/**
 * Lets a request wait until a status record turns final, without polling Redis: the FINISH script
 * publishes the id of every record it finalizes, and this gateway holds one subscriber connection
 * that wakes the requests waiting on that id. A message lost while the connection is down only
 * makes a waiter sleep until its own deadline; it then reads the record as a poll would.
 */
export class FinalStatusWaits {
  private readonly waiters = new Map<string, Set<() => void>>();
  private subscribed: Promise<unknown> | null = null;

  constructor(
    private readonly subscriber: Redis,
    private readonly channel: string,
  ) {
    subscriber.on("message", (_channel: string, requestId: string) => this.wake(requestId));
  }

  /**
   * Starts listening for `requestId` and resolves once subscribed; `finished` then resolves when its
   * record turns final, when `timeoutMs` has passed or when `signal` aborts, whichever is first. Read
   * the record after this call, and a finish in between is not missed.
   */
  async listen(requestId: string, timeoutMs: number, signal: AbortSignal): Promise<{ finished: Promise<void> }> {
    this.subscribed ??= this.subscriber.subscribe(this.channel).catch((error: unknown) => {
      this.subscribed = null;
      throw error;
    });
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const waiting = this.waiters.get(requestId) ?? new Set();
    waiting.add(wake);
    this.waiters.set(requestId, waiting);
    const timer = setTimeout(wake, timeoutMs);
    signal.addEventListener("abort", wake, { once: true });
    const done = woken.then(() => {
      clearTimeout(timer);
      signal.removeEventListener("abort", wake);
      waiting.delete(wake);
      if (waiting.size === 0 && this.waiters.get(requestId) === waiting) this.waiters.delete(requestId);
    });
    try {
      await this.subscribed;
    } catch (error) {
      wake();
      throw error;
    }
    // Wrapped: an async function that returned `done` itself would resolve only when `done` does, and
    // the caller's read would come after the wait instead of before it.
    return { finished: done };
  }

  /** Requests waiting now (a gauge for metrics and tests). */
  get waiting(): number {
    let count = 0;
    for (const set of this.waiters.values()) count += set.size;
    return count;
  }

  close(): void {
    for (const set of this.waiters.values()) for (const wake of set) wake();
    this.subscriber.disconnect();
  }

  private wake(requestId: string): void {
    for (const wake of this.waiters.get(requestId) ?? []) wake();
  }
}
