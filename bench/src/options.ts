import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { AUDIO_FORMATS, type AudioFormat } from "@chorus/contracts";
import { DEFAULT_BENCH_MODEL } from "./paths.js";

export interface BenchOptions {
  /** Seconds of each load run (one subject or baseline run of the submit and status rows). */
  durationS: number;
  /** Concurrent connections of each load run. */
  connections: number;
  /** Subject/baseline pairs per throughput row and noisy-neighbour row (order alternates; the median is reported). */
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
  /** The GGUF model of the real worker (memory and generation rows) and of the direct llama.cpp baseline. */
  model: string;
  /** Speech rows: the audio formats measured, one row each. */
  formats: AudioFormat[];
  /** Speech rows: recorded requests per format and side (after one unrecorded warm-up each). */
  speechRuns: number;
  /** Generation rows: recorded jobs per side (after one unrecorded warm-up each). */
  generations: number;
  /** Generation rows: max_tokens of each job. */
  maxTokens: number;
  /** Generation rows: llama.cpp threads of the bench's worker (LLM_THREADS) and of the direct baseline. */
  threads: number;
  /** Generation rows: also measure a larger model shape made offline from the model's tokenizer. */
  largerModel: boolean;
  /** Inference rows: llama.cpp's own server, built once from node-llama-cpp's bundled source, or none. */
  anchor: "llama-server" | "none";
  /** Batch row: lines of the batch (16 tokens each), and as many requests straight to the engine. */
  batchLines: number;
  /** The row groups measured, in the bench's own order (default: all). */
  rowGroups: RowGroupName[];
}

/** Row groups in the order they run: memory first, its idle figures need untouched processes. */
export const ROW_GROUP_NAMES = [
  "memory",
  "submit",
  "status",
  "status-steps",
  "queue",
  "noisy",
  "waiting",
  "speech",
  "speech-first-byte",
  "generation",
  "inference",
  "openai",
  "routing",
  "takeover",
  "batch",
] as const;
export type RowGroupName = (typeof ROW_GROUP_NAMES)[number];

export const USAGE = `usage: npm run bench -- [--duration S] [--connections N] [--rounds N] [--warmup S]
                        [--samples N] [--out FILE] [--quick] [--profile DIR] [--model FILE]
                        [--formats LIST] [--speech-runs N] [--generations N] [--max-tokens N] [--threads N]
                        [--larger-model | --no-larger-model] [--anchor llama-server|none] [--rows LIST]
  --duration S      seconds per load run (default 8; --quick: 1)
  --connections N   concurrent connections per load run (default 50; --quick: 4)
  --rounds N        subject/baseline pairs per throughput and noisy-neighbour row, median reported
                    (default 5; --quick: 1)
  --warmup S        unrecorded load per server before measuring (default 2; --quick: 0)
  --samples N       probe jobs per queue-overhead figure (default 150; --quick: 10)
  --out FILE        JSON results (default bench-results/latest.json)
  --quick           smoke-test scale: every row, a few seconds in all
  --profile DIR     run the gateway with --cpu-prof, profile written to DIR at the end
  --model FILE      GGUF model for the worker (default: fixtures/models/stories260K-chatml.gguf)
  --formats LIST    speech formats, comma-separated (default mp3,wav,opus,flac,pcm; --quick: wav)
  --speech-runs N   speech requests per format and side, median reported (default 5; --quick: 1)
  --generations N   generation jobs per side, median reported (default 5; --quick: 1)
  --max-tokens N    max_tokens of each generation job (default 256; --quick: 32)
  --threads N       LLM_THREADS of the worker, the direct llama.cpp baseline and llama-server
                    (default: the cores available; --quick: 1)
  --larger-model    also measure generation on a larger model shape made offline (default; --quick: off)
  --no-larger-model skip it (generation rows; the inference rows use it unless --quick)
  --anchor A        inference rows: llama-server (default; the one npm run llama:build makes, in
                    ~/.cache/chorus/llama-builds/<version>-<cpu>-server/ or LLAMA_BUILD_CACHE, built
                    there first if missing: needs cmake and g++) or none (--quick: none)
  --batch-lines N   batch row: lines of the batch, 16 tokens each (default 200; --quick: 12; the issue
                    asks for 1000)
  --rows LIST       row groups to measure, comma-separated (default: all of ${ROW_GROUP_NAMES.join(",")})`;

export class UsageError extends Error {}

const FULL = {
  durationS: 8,
  connections: 50,
  rounds: 5,
  warmupS: 2,
  queueSamples: 150,
  formats: [...AUDIO_FORMATS] as AudioFormat[],
  speechRuns: 5,
  generations: 5,
  maxTokens: 256,
  batchLines: 200,
};
const QUICK = {
  durationS: 1,
  connections: 4,
  rounds: 1,
  warmupS: 0,
  queueSamples: 10,
  formats: ["wav"] as AudioFormat[],
  speechRuns: 1,
  generations: 1,
  maxTokens: 32,
  batchLines: 12,
};

function number(name: string, raw: string | undefined, fallback: number, min: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min)
    throw new UsageError(`--${name} must be a number >= ${min}, got '${raw}'`);
  return value;
}

function integer(name: string, raw: string | undefined, fallback: number, min: number): number {
  const value = number(name, raw, fallback, min);
  if (!Number.isInteger(value)) throw new UsageError(`--${name} must be a whole number, got '${raw ?? ""}'`);
  return value;
}

function formats(raw: string | undefined, fallback: AudioFormat[]): AudioFormat[] {
  if (raw === undefined) return fallback;
  const listed = raw
    .split(",")
    .map((f) => f.trim())
    .filter(Boolean);
  const unknown = listed.filter((f) => !(AUDIO_FORMATS as readonly string[]).includes(f));
  if (listed.length === 0 || unknown.length > 0)
    throw new UsageError(`--formats takes a comma-separated list of ${AUDIO_FORMATS.join(", ")}; got '${raw}'`);
  return [...new Set(listed as AudioFormat[])];
}

function anchor(raw: string | undefined, quick: boolean): "llama-server" | "none" {
  if (raw === undefined) return quick ? "none" : "llama-server";
  if (raw === "llama-server" || raw === "none") return raw;
  throw new UsageError(`--anchor takes llama-server or none; got '${raw}'`);
}

function rowGroups(raw: string | undefined): RowGroupName[] {
  if (raw === undefined) return [...ROW_GROUP_NAMES];
  const listed = raw
    .split(",")
    .map((r) => r.trim())
    .filter(Boolean);
  const unknown = listed.filter((r) => !(ROW_GROUP_NAMES as readonly string[]).includes(r));
  if (listed.length === 0 || unknown.length > 0)
    throw new UsageError(`--rows takes a comma-separated list of ${ROW_GROUP_NAMES.join(", ")}; got '${raw}'`);
  return ROW_GROUP_NAMES.filter((name) => listed.includes(name));
}

export function parseBenchOptions(argv: string[], cwd = process.cwd()): BenchOptions {
  const text = { type: "string" } as const;
  const { values } = parseArgs({
    args: argv,
    options: {
      ...{
        duration: text,
        connections: text,
        rounds: text,
        warmup: text,
        samples: text,
        out: text,
        profile: text,
        model: text,
      },
      ...{
        formats: text,
        "speech-runs": text,
        generations: text,
        "max-tokens": text,
        threads: text,
        rows: text,
        anchor: text,
        "batch-lines": text,
      },
      quick: { type: "boolean", default: false },
      "larger-model": { type: "boolean" },
      "no-larger-model": { type: "boolean" },
    },
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
    formats: formats(values.formats, scale.formats),
    speechRuns: integer("speech-runs", values["speech-runs"], scale.speechRuns, 1),
    batchLines: integer("batch-lines", values["batch-lines"], scale.batchLines, 1),
    generations: integer("generations", values.generations, scale.generations, 1),
    maxTokens: integer("max-tokens", values["max-tokens"], scale.maxTokens, 1),
    threads: integer("threads", values.threads, quick ? 1 : availableParallelism(), 1),
    anchor: anchor(values.anchor, quick),
    largerModel: values["no-larger-model"] === true ? false : (values["larger-model"] ?? !quick),
    rowGroups: rowGroups(values.rows),
  };
}
