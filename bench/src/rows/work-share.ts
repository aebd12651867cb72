import { median, round } from "../metrics/stats.js";
import type { Figure } from "../report/bench-row.js";

/** One job of a work-share round: whose it is, what it costs in turns, and when it started. */
export interface StartedJob {
  flood: boolean;
  cost: number;
  startedAt: number;
}

/**
 * The flooding key's share of the work started while both keys still had requests waiting: the jobs
 * in start order, up to and including the start that left one key with nothing waiting. Fair by cost
 * is 0.5, whatever each request costs; arrival order gives the key that sent first all of it.
 */
export function floodWorkShare(jobs: readonly StartedJob[]): number {
  let floodLeft = jobs.filter((job) => job.flood).length;
  let otherLeft = jobs.length - floodLeft;
  let [floodWork, otherWork] = [0, 0];
  for (const job of [...jobs].sort((a, b) => a.startedAt - b.startedAt)) {
    if (floodLeft === 0 || otherLeft === 0) break;
    if (job.flood) [floodWork, floodLeft] = [floodWork + job.cost, floodLeft - 1];
    else [otherWork, otherLeft] = [otherWork + job.cost, otherLeft - 1];
  }
  return floodWork / (floodWork + otherWork);
}

/** One side of a work-share row: the median share over rounds, in percent, each round's in `runs`. */
export function workShareFigure(label: string, shares: readonly number[]): Figure {
  const percents = shares.map((share) => share * 100);
  return {
    label,
    value: round(median(percents), 1),
    unit: "%",
    runs: percents.map((v) => round(v, 1)),
    samples: shares.length,
  };
}
