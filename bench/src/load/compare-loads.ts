import type { BenchOptions } from "../options.js";
import { median } from "../metrics/stats.js";
import { runLoad, type LoadResult, type LoadSettings, type LoadSpec } from "./autocannon.js";

export interface ComparePlan extends LoadSettings {
  rounds: number;
  warmupS: number;
  /** Runs after every load (recorded or not), e.g. to empty the queues. */
  between: () => Promise<void>;
  log: (line: string) => void;
}

/** The plan of a throughput comparison from the bench's options; `between` defaults to nothing. */
export function comparePlan(
  options: BenchOptions,
  log: (line: string) => void,
  between: () => Promise<void> = () => Promise.resolve(),
): ComparePlan {
  return {
    connections: options.connections,
    durationS: options.durationS,
    rounds: options.rounds,
    warmupS: options.warmupS,
    between,
    log,
  };
}

export interface LoadSeries {
  runs: LoadResult[];
  /** Medians over the runs. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  failed: number;
  /** Median CPU time of the answering process per response, µs (NaN when unmeasured). */
  serverCpuUs: number;
}

/** The subject's and the baseline's runs of one row, round by round. */
export interface LoadPair {
  subject: LoadSeries;
  baseline: LoadSeries;
}

function series(runs: LoadResult[]): LoadSeries {
  return {
    runs,
    rps: median(runs.map((r) => r.rps)),
    p50Ms: median(runs.map((r) => r.p50Ms)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
    failed: runs.reduce((sum, r) => sum + r.failed, 0),
    serverCpuUs: median(runs.map((r) => r.serverCpuUs).filter(Number.isFinite)),
  };
}

const cpuText = (result: LoadResult) =>
  Number.isFinite(result.serverCpuUs) ? `, server CPU ${Math.round(result.serverCpuUs)} µs/response` : "";

/**
 * Subject and baseline in alternating order (S B, B S, S B, ...) so that drift on a noisy machine
 * (another tenant, thermal throttling) falls on both alike; the medians over the rounds are reported.
 */
export async function compareLoads(subject: LoadSpec, baseline: LoadSpec, plan: ComparePlan): Promise<LoadPair> {
  const compared = await compareSeveral([subject], baseline, plan);
  return { subject: compared.subjects[0] as LoadSeries, baseline: compared.baseline };
}

/**
 * Several subjects against one baseline, all in one round after another, each round in the reverse
 * order of the one before (so no load always runs first or last).
 */
export async function compareSeveral(
  subjects: LoadSpec[],
  baseline: LoadSpec,
  plan: ComparePlan,
): Promise<{ subjects: LoadSeries[]; baseline: LoadSeries }> {
  const settings = { connections: plan.connections, durationS: plan.durationS };
  const specs = [...subjects, baseline];
  const names = [...subjects.map((_, i) => (subjects.length === 1 ? "subject" : `subject ${i + 1}`)), "baseline"];
  if (plan.warmupS > 0) {
    for (const spec of specs) {
      await runLoad(spec, { connections: plan.connections, durationS: plan.warmupS });
      await plan.between();
    }
  }
  const runs: LoadResult[][] = specs.map(() => []);
  for (let round = 0; round < plan.rounds; round++) {
    const order = specs.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const i of order) {
      const result = await runLoad(specs[i] as LoadSpec, settings);
      plan.log(
        `  round ${round + 1}/${plan.rounds} ${names[i] as string}: ${Math.round(result.rps)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms${cpuText(result)}${result.failed ? `, ${result.failed} failed` : ""}`,
      );
      (runs[i] as LoadResult[]).push(result);
      await plan.between();
    }
  }
  const all = runs.map(series);
  return { subjects: all.slice(0, -1), baseline: all[all.length - 1] as LoadSeries };
}
