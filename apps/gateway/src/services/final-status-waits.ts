import type { RedisClient } from "@chorus/platform/redis";
import { ChannelSubscriber } from "./channel-subscriber.js";

/** A registered wait: `subscribed` once a finish can no longer be missed, `finished` when it ends. */
export interface FinalStatusWait {
  subscribed: Promise<void>;
  finished: Promise<void>;
}

/**
 * Lets a request wait until a status record turns final, without polling Redis: the FINISH script
 * publishes the id of every record it finalizes, and this gateway holds one subscriber connection
 * that wakes the requests waiting on that id. A message lost while the connection is down only
 * makes a waiter sleep until its own deadline; it then reads the record as a poll would.
 */
export class FinalStatusWaits {
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly subscriber: ChannelSubscriber;

  constructor(connection: RedisClient, channel: string) {
    this.subscriber = new ChannelSubscriber(connection, channel, (requestId) => this.wake(requestId));
  }

  /**
   * Registers a wait for `requestId` at once. `finished` resolves when its record turns final, when
   * `timeoutMs` has passed or when `signal` aborts, whichever is first. Read the record once
   * `subscribed` has settled: a finish published before that is seen by the read, one after it
   * wakes the wait. `subscribed` also settles when the wait ends first (Redis away), never hangs.
   */
  listen(requestId: string, timeoutMs: number, signal: AbortSignal): FinalStatusWait {
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const waiting = this.waiters.get(requestId) ?? new Set();
    waiting.add(wake);
    this.waiters.set(requestId, waiting);
    const timer = setTimeout(wake, timeoutMs);
    if (signal.aborted) wake();
    else signal.addEventListener("abort", wake, { once: true });
    const finished = woken.then(() => {
      clearTimeout(timer);
      signal.removeEventListener("abort", wake);
      waiting.delete(wake);
      if (waiting.size === 0 && this.waiters.get(requestId) === waiting) this.waiters.delete(requestId);
    });
    return { subscribed: Promise.race([this.subscriber.subscribed(), finished]), finished };
  }

  /** Requests waiting now (a gauge for metrics and tests). */
  get waiting(): number {
    let count = 0;
    for (const set of this.waiters.values()) count += set.size;
    return count;
  }

  /** Wakes every waiter (each then answers with the record as it stands) and disconnects. */
  close(): void {
    for (const set of this.waiters.values()) for (const wake of set) wake();
    this.subscriber.close();
  }

  private wake(requestId: string): void {
    for (const wake of this.waiters.get(requestId) ?? []) wake();
  }
}
