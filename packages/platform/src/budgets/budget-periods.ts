/** The UTC periods a usage budget counts in, and when each starts again. */

/** `YYYY-MM-DD`, UTC. */
export const utcDayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** `YYYY-MM`, UTC. */
export const utcMonthOf = (ms: number): string => new Date(ms).toISOString().slice(0, 7);

/** The next UTC midnight after `ms` (ms). */
export function nextUtcDay(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
}

/** The start of the next UTC month after `ms` (ms). */
export function nextUtcMonth(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}
