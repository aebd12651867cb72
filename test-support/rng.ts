/** A seeded PRNG for tests: a seed names a sequence, so a failure reproduces. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** mulberry32: small, fast, good enough to pick inputs. */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
  /** Picks a generator by weight and runs it. */
  weighted<T>(entries: readonly (readonly [number, () => T])[]): T {
    let roll = this.next() * entries.reduce((sum, [w]) => sum + w, 0);
    for (const [weight, make] of entries) if ((roll -= weight) < 0) return make();
    return (entries[entries.length - 1] as readonly [number, () => T])[1]();
  }
}
