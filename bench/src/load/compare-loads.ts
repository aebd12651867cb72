import { median } from "../metrics/stats.js";
import { runLoad, type LoadResult, type LoadSettings, type LoadSpec } from "./autocannon.js";

export interface ComparePlan extends LoadSettings {
  rounds: number;
  warmupS: number;
  /** Runs after every load (recorded or not), e.g. to empty the queues. */
  between: () => Promise<void>;
  log: (line: string) => void;
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

const cpuText = (result: LoadResult) => (Number.isFinite(result.serverCpuUs) ? `, server CPU ${Math.round(result.serverCpuUs)} µs/response` : "");

/**
 * Subject and baseline in alternating order (S B, B S, S B, ...) so that drift on a noisy machine
 * (another tenant, thermal throttling) falls on both alike; the medians over the rounds are reported.
 */
export async function compareLoads(subject: LoadSpec, baseline: LoadSpec, plan: ComparePlan): Promise<LoadPair> {
  const settings = { connections: plan.connections, durationS: plan.durationS };
  if (plan.warmupS > 0) {
    for (const spec of [subject, baseline]) {
      await runLoad(spec, { connections: plan.connections, durationS: plan.warmupS });
      await plan.between();
    }
  }
  const runs = { subject: [] as LoadResult[], baseline: [] as LoadResult[] };
  for (let round = 0; round < plan.rounds; round++) {
    const order = round % 2 === 0 ? (["subject", "baseline"] as const) : (["baseline", "subject"] as const);
    for (const which of order) {
      const result = await runLoad(which === "subject" ? subject : baseline, settings);
      plan.log(`  round ${round + 1}/${plan.rounds} ${which}: ${Math.round(result.rps)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms${cpuText(result)}${result.failed ? `, ${result.failed} failed` : ""}`);
      runs[which].push(result);
      await plan.between();
    }
  }
  return { subject: series(runs.subject), baseline: series(runs.baseline) };
}
