/** A long-lived unit of work capacity that remembers the tokens it last evaluated, and for whom. */
export interface CacheSlot {
  /** Tokens the slot holds from its last job (its prompt and reply), in order. */
  cachedTokens(): readonly number[];
  /** The API key whose job the slot last ran (null: none yet, or unscoped). */
  owner: string | null;
}

/**
 * Whose prompt this is, and how much of it is the operator's own text (the character's system
 * turn), shared by every key on purpose. Another key's cache is reused up to `sharedTokens`, never
 * beyond: no key learns from reuse (counts or speed) what another key sent.
 */
export interface CacheScope {
  owner: string;
  sharedTokens: number;
}

export interface Borrowed<S extends CacheSlot> {
  slot: S;
  /** Leading tokens of the prompt the slot holds and the job may reuse. */
  sharedPrefix: number;
  /**
   * The slot holds another key's tokens: the engine must cut it back to `sharedPrefix` before the job
   * reads it. Always, not only when more of it matches: what the cut costs must not tell either.
   */
  mustCut: boolean;
  /** Who the slot held tokens for before this job (the engine may keep them for that key). */
  previousOwner: string | null;
}

interface Waiter<S extends CacheSlot> {
  prompt: readonly number[];
  scope: CacheScope | undefined;
  grant: (borrowed: Borrowed<S>) => void;
}

export function sharedPrefixLength(a: readonly number[], b: readonly number[]): number {
  const end = Math.min(a.length, b.length);
  let i = 0;
  while (i < end && a[i] === b[i]) i++;
  return i;
}

/** What a job may reuse of a slot: all the common prefix of its own key's, the operator's part of another's. */
function reuseOf(slot: CacheSlot, prompt: readonly number[], scope: CacheScope | undefined) {
  const held = slot.cachedTokens();
  const common = sharedPrefixLength(held, prompt);
  if (!scope || slot.owner === null || slot.owner === scope.owner) return { sharedPrefix: common, mustCut: false };
  return { sharedPrefix: Math.min(common, scope.sharedTokens), mustCut: true };
}

/**
 * A fixed set of slots, one per concurrent job, created once. A job borrows the free slot whose
 * cached tokens share the longest prefix with its prompt (so a conversation's next turn, or another
 * chat with the same character, re-reads only what is new), counting another key's slot only up to
 * the operator's shared prefix, and gives it back when done. When every slot is busy a job waits
 * its turn (first come, first served) instead of failing.
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

  /** Resolves with a slot, now owned by the scope's key; rejects with the signal's reason if aborted while waiting. */
  async acquire(prompt: readonly number[], signal: AbortSignal, scope?: CacheScope): Promise<Borrowed<S>> {
    signal.throwIfAborted();
    if (this.free.length > 0) return this.take(prompt, scope);
    return new Promise((resolve, reject) => {
      const waiter: Waiter<S> = {
        prompt,
        scope,
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
    if (next) next.grant(this.take(next.prompt, next.scope));
  }

  /** The free slot with the most to reuse; on a tie, one of the key's own (or nobody's): no cut. */
  private take(prompt: readonly number[], scope: CacheScope | undefined): Borrowed<S> {
    let best = 0;
    let bestReuse = { sharedPrefix: -1, mustCut: true };
    this.free.forEach((slot, i) => {
      const reuse = reuseOf(slot, prompt, scope);
      const better =
        reuse.sharedPrefix > bestReuse.sharedPrefix ||
        (reuse.sharedPrefix === bestReuse.sharedPrefix && bestReuse.mustCut && !reuse.mustCut);
      if (better) [best, bestReuse] = [i, reuse];
    });
    const [slot] = this.free.splice(best, 1) as [S];
    const previousOwner = slot.owner;
    if (scope) slot.owner = scope.owner;
    return { slot, ...bestReuse, previousOwner };
  }
}
