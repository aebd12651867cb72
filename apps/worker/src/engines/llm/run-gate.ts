interface Waiter {
  exclusive: boolean;
  grant: () => void;
}

/**
 * Shared and exclusive runs on one server, first come first served: an exclusive run starts only
 * when nothing else runs and holds every other run back until it ends. llama-server decodes its busy
 * slots in one batch, and a batch's make-up changes a reply's numbers in their last bits (enough to
 * flip a sampled token); a reply promised to be reproducible is therefore decoded alone.
 */
export class RunGate {
  private shared = 0;
  private exclusive = false;
  private readonly waiters: Waiter[] = [];

  /** Resolves with the way to leave; rejects with the signal's reason if aborted while waiting. */
  async enter(exclusive: boolean, signal: AbortSignal): Promise<() => void> {
    signal.throwIfAborted();
    if (this.waiters.length === 0 && this.canStart(exclusive)) return this.start(exclusive);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        exclusive,
        grant: () => {
          signal.removeEventListener("abort", onAbort);
          resolve(this.start(exclusive));
        },
      };
      const onAbort = (): void => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(signal.reason as Error);
        this.admitWaiters();
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  private canStart(exclusive: boolean): boolean {
    return !this.exclusive && (!exclusive || this.shared === 0);
  }

  private start(exclusive: boolean): () => void {
    if (exclusive) this.exclusive = true;
    else this.shared++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      if (exclusive) this.exclusive = false;
      else this.shared--;
      this.admitWaiters();
    };
  }

  private admitWaiters(): void {
    while (this.waiters[0] && this.canStart(this.waiters[0].exclusive)) this.waiters.shift()?.grant();
  }
}
