/** Listeners kept by request id: a gateway's map from a request to what is open on it here. */
export class ListenersById<L> {
  private readonly byId = new Map<string, Set<L>>();

  /**
   * Adds `listener` for `id`; returns the way to take it out again (at once, the id forgotten with its last listener).
   */
  add(id: string, listener: L): () => void {
    const listening = this.byId.get(id) ?? new Set();
    listening.add(listener);
    this.byId.set(id, listening);
    return () => {
      listening.delete(listener);
      if (listening.size === 0 && this.byId.get(id) === listening) this.byId.delete(id);
    };
  }

  of(id: string): Iterable<L> {
    return this.byId.get(id) ?? [];
  }

  /** Every listener, as a copy (a listener may take itself out while it is called). */
  all(): L[] {
    return [...this.byId.values()].flatMap((set) => [...set]);
  }

  get size(): number {
    let count = 0;
    for (const set of this.byId.values()) count += set.size;
    return count;
  }
}
