/** A long-lived unit of work capacity that remembers the tokens it last evaluated. */
export interface CacheSlot {
  /** Tokens the slot holds from its last job (its prompt and reply), in order. */
  cachedTokens(): readonly number[];
}

export interface Borrowed<S extends CacheSlot> {
  slot: S;
  /** Leading tokens of the prompt the slot already holds. */
  sharedPrefix: number;
}

interface Waiter<S extends CacheSlot> {
  prompt: readonly number[];
  grant: (borrowed: Borrowed<S>) => void;
}

export function sharedPrefixLength(a: readonly number[], b: readonly number[]): number {
  const end = Math.min(a.length, b.length);
  let i = 0;
  while (i < end && a[i] === b[i]) i++;
  return i;
}

/**
 * A fixed set of slots, one per concurrent job, created once. A job borrows the free slot whose
 * cached tokens share the longest prefix with its prompt (so a conversation's next turn, or another
 * chat with the same character, re-reads only what is new) and gives it back when done. When every
 * slot is busy a job waits its turn (first come, first served) instead of failing.
 */
export class SlotPool<S extends CacheSlot> {
  private readonly free: S[];
  private readonly waiters: Waiter<S>[] = [];

  constructor(readonly slots: readonly S[]) {
    if (slots.length === 0) throw new Error("a slot pool needs at least one slot");
    this.free = [...slots];
  }

  get busyCount(): number {
    return this.slots.length - this.free.length;
  }

  /** Resolves with a slot; rejects with the signal's reason if aborted while waiting. */
  async acquire(prompt: readonly number[], signal: AbortSignal): Promise<Borrowed<S>> {
    signal.throwIfAborted();
    if (this.free.length > 0) return this.take(prompt);
    return new Promise((resolve, reject) => {
      const waiter: Waiter<S> = {
        prompt,
        grant: (borrowed) => {
          signal.removeEventListener("abort", onAbort);
          resolve(borrowed);
        },
      };
      const onAbort = (): void => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(signal.reason as Error);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  release(slot: S): void {
    if (!this.slots.includes(slot) || this.free.includes(slot))
      throw new Error("released a slot that was not borrowed");
    this.free.push(slot);
    const next = this.waiters.shift();
    if (next) next.grant(this.take(next.prompt));
  }

  private take(prompt: readonly number[]): Borrowed<S> {
    let best = 0;
    let bestPrefix = -1;
    this.free.forEach((slot, i) => {
      const prefix = sharedPrefixLength(slot.cachedTokens(), prompt);
      if (prefix > bestPrefix) [best, bestPrefix] = [i, prefix];
    });
    const [slot] = this.free.splice(best, 1) as [S];
    return { slot, sharedPrefix: bestPrefix };
  }
}
