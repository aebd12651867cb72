import { median, round } from "../metrics/stats.js";
import type { Figure } from "../report/bench-row.js";

/** When a job started and when its work was done: the no-op worker's stamps (nowMs). */
export interface JobStamps {
  startedAt: number;
  finishedAt: number;
}

/** One round of the noisy-neighbour row: one key's flood, then another key's single request. */
export interface NoisyRound {
  flood: JobStamps[];
  /** nowMs() just before the quiet key's POST. */
  quietSentAt: number;
  quiet: JobStamps;
}

/** The quiet request's wait in one round, in ms and in job-times, and the flood jobs that went first. */
export interface QuietWait {
  waitMs: number;
  jobTimeMs: number;
  jobTimes: number;
  floodAhead: number;
}

/**
 * One slot's time per job in the round, what happens between jobs included: from the round's first
 * start to its last finish, times the slots, over the jobs. A fixed hold would leave out the
 * queue's own time per job, which the quiet request waits for as well.
 */
export function jobTimeMs(r: NoisyRound, slots: number): number {
  const jobs = [...r.flood, r.quiet];
  const first = Math.min(...jobs.map((j) => j.startedAt));
  const last = Math.max(...jobs.map((j) => j.finishedAt));
  return ((last - first) * slots) / jobs.length;
}

/** From the quiet key's POST to its job starting, and the flood jobs that started in between. */
export function quietWait(r: NoisyRound, slots: number): QuietWait {
  const waitMs = r.quiet.startedAt - r.quietSentAt;
  const perJob = jobTimeMs(r, slots);
  const floodAhead = r.flood.filter((j) => j.startedAt > r.quietSentAt && j.startedAt < r.quiet.startedAt).length;
  return { waitMs, jobTimeMs: perJob, jobTimes: waitMs / perJob, floodAhead };
}

/** One side of the row: the median over rounds of the wait in job-times, each round's in `runs`. */
export function quietWaitFigure(label: string, waits: readonly QuietWait[]): Figure {
  const jobTimes = waits.map((w) => w.jobTimes);
  return {
    label,
    value: round(median(jobTimes), 2),
    unit: "job-times",
    runs: jobTimes.map((v) => round(v, 2)),
    samples: waits.length,
  };
}

/** What stands behind one side's figure, as medians over its rounds. */
export function quietWaitNote(side: string, waits: readonly QuietWait[]): string {
  const of = (field: keyof QuietWait, digits: number) => round(median(waits.map((w) => w[field])), digits);
  const ahead = `flood jobs started between its POST and its start ${of("floodAhead", 1)}`;
  return `${side}: quiet wait ${of("waitMs", 1)} ms, job time ${of("jobTimeMs", 1)} ms, ${ahead} (medians)`;
}
