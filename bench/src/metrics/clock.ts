/**
 * Wall-clock milliseconds with sub-millisecond precision that are comparable across processes on
 * one machine: every process's `timeOrigin` is read from the same system clock at its start, and
 * `performance.now()` is monotonic from there. (Date.now() would do at 1 ms precision; the queue
 * row measures a few milliseconds, so the extra precision matters.)
 */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
