import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { DEFAULT_BENCH_MODEL } from "./paths.js";

export interface BenchOptions {
  /** Seconds of each load run (one subject or baseline run of the submit and status rows). */
  durationS: number;
  /** Concurrent connections of each load run. */
  connections: number;
  /** Subject/baseline pairs per throughput row (order alternates; the median is reported). */
  rounds: number;
  /** Seconds of an unrecorded load on each server before its first recorded run. */
  warmupS: number;
  /** Probe jobs per queue-overhead figure. */
  queueSamples: number;
  /** Where the JSON results go. */
  out: string;
  quick: boolean;
  /** When set, the gateway runs with --cpu-prof and writes its profile here when it stops. */
  profileDir: string | null;
  /** The GGUF model of the real worker (memory row); generation cost is not measured. */
  model: string;
}

export const USAGE = `usage: npm run bench -- [--duration S] [--connections N] [--rounds N] [--warmup S]
                        [--samples N] [--out FILE] [--quick] [--profile DIR] [--model FILE]
  --duration S      seconds per load run (default 8; --quick: 1)
  --connections N   concurrent connections per load run (default 50; --quick: 4)
  --rounds N        subject/baseline pairs per throughput row, median reported (default 3; --quick: 1)
  --warmup S        unrecorded load per server before measuring (default 2; --quick: 0)
  --samples N       probe jobs per queue-overhead figure (default 150; --quick: 10)
  --out FILE        JSON results (default bench-results/latest.json)
  --quick           smoke-test scale: every row, a few seconds in all
  --profile DIR     run the gateway with --cpu-prof, profile written to DIR at the end
  --model FILE      GGUF model for the worker (default: the shared stories260K fixture)`;

export class UsageError extends Error {}

const FULL = { durationS: 8, connections: 50, rounds: 3, warmupS: 2, queueSamples: 150 };
const QUICK = { durationS: 1, connections: 4, rounds: 1, warmupS: 0, queueSamples: 10 };

function number(name: string, raw: string | undefined, fallback: number, min: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) throw new UsageError(`--${name} must be a number >= ${min}, got '${raw}'`);
  return value;
}

function integer(name: string, raw: string | undefined, fallback: number, min: number): number {
  const value = number(name, raw, fallback, min);
  if (!Number.isInteger(value)) throw new UsageError(`--${name} must be a whole number, got '${raw ?? ""}'`);
  return value;
}

export function parseBenchOptions(argv: string[], cwd = process.cwd()): BenchOptions {
  const text = { type: "string" } as const;
  const { values } = parseArgs({
    args: argv,
    options: { duration: text, connections: text, rounds: text, warmup: text, samples: text, out: text, profile: text, model: text, quick: { type: "boolean", default: false } },
  });
  const quick = values.quick === true;
  const scale = quick ? QUICK : FULL;
  return {
    durationS: number("duration", values.duration, scale.durationS, 1),
    connections: integer("connections", values.connections, scale.connections, 1),
    rounds: integer("rounds", values.rounds, scale.rounds, 1),
    warmupS: number("warmup", values.warmup, scale.warmupS, 0),
    queueSamples: integer("samples", values.samples, scale.queueSamples, 1),
    out: resolve(cwd, values.out ?? "bench-results/latest.json"),
    quick,
    profileDir: values.profile ? resolve(cwd, values.profile) : null,
    model: resolve(cwd, values.model ?? DEFAULT_BENCH_MODEL),
  };
}
