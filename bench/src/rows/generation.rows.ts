import { basename } from "node:path";
import type { GenerationCall, GenerationTiming } from "../baselines/direct-engine-messages.js";
import { median, round } from "../metrics/stats.js";
import { LARGER_MODEL_LABEL, writeLargerModel } from "../models/larger-model.js";
import { makeRow, type BenchRow, type Figure } from "../report/bench-row.js";
import { EngineProcess } from "../stack/engine-process.js";
import { startRealWorker } from "../stack/workers.js";
import { appEnv } from "@chorus/local-runtime";
import {
  alternate,
  generateDirectly,
  generateThroughSystem,
  generationBody,
  POLL_INTERVAL_MS,
  type GenerationJob,
} from "./generation-jobs.js";
import type { BenchContext, RowGroup } from "./row-group.js";

/**
 * Tokens per second of a generation job through the whole system next to the same model
 * generating directly, same threads. Subject: jobs submitted one at a time to the gateway, the
 * status polled until `completed`; tokens / (submit → completed seen), and the worker's own
 * tokens / processingTime from the record. Baseline: the worker's llama.cpp engine alone in a
 * process, same model file, LLM_THREADS, sequences (WORKER_CONCURRENCY) and context size.
 * Run for the bench's model and for a larger model shape made offline (models/larger-model.ts).
 */
const WORKER_CONCURRENCY = 2; // the worker's default, set explicitly: the baseline loads as many sequences
const CONTEXT_SIZE = 4096; // LLM_CONTEXT_SIZE default (clamped to the model's training context on both sides)
const LARGER_MODEL_JOBS = 3; // at most, per side: ~2.7 s a job on one thread

interface ModelRun {
  label: string;
  path: string;
  jobs: number;
}

const rates = (jobs: GenerationJob[], seconds: (job: GenerationJob) => number) =>
  jobs.map((job) => job.tokens / seconds(job));

function tokFigure(label: string, values: number[]): Figure {
  return {
    label,
    value: round(median(values), 1),
    unit: "tok/s",
    runs: values.map((r) => round(r, 1)),
    samples: values.length,
  };
}

function modelRows(
  run: ModelRun,
  threads: number,
  jobs: { subject: GenerationJob[]; baseline: GenerationJob[] },
  extraNote: string,
): BenchRow[] {
  const direct = tokFigure(
    "the worker's llama.cpp engine alone in a process (same prompt, model, threads)",
    rates(jobs.baseline, (j) => j.workerS),
  );
  const endToEnd = tokFigure(
    "submit → queue → worker → status polled until completed",
    rates(jobs.subject, (j) => j.endToEndS),
  );
  const workerSide = tokFigure(
    "the worker's own figure: tokens / processingTime of the record",
    rates(jobs.subject, (j) => j.workerS),
  );
  const tokens = (list: GenerationJob[]) => round(median(list.map((j) => j.tokens)), 0);
  const method = `${run.jobs} job(s) per side one at a time after one warm-up each, order alternating; medians; LLM_THREADS=${threads} on both sides, ${WORKER_CONCURRENCY} sequences; ${run.path.split("/").pop() ?? run.path}; median ${tokens(jobs.subject)} tokens per job through the system, ${tokens(jobs.baseline)} direct`;
  const overhead = (figure: Figure, where: string) =>
    `${round((1 - figure.value / direct.value) * 100, 1)}% of the time per token is overhead (1 − ratio): ${where}`;
  const row = (what: string, subject: Figure, notes: string[]) =>
    makeRow({
      group: "generation",
      name: `generation ${run.label}, tok/s ${what}`,
      subject,
      baseline: direct,
      target: null,
      notes,
    });
  return [
    row("submit → completed", endToEnd, [
      method,
      overhead(
        endToEnd,
        `queue, worker bookkeeping, status and progress writes, polling every ${POLL_INTERVAL_MS} ms, and the cores shared with gateway, Redis and poller`,
      ),
      extraNote,
    ]),
    row("worker-side", workerSide, [
      method,
      overhead(
        workerSide,
        "inside the worker's processingTime (status record, progress writes every 250 ms, prompt building, cores shared with the rest)",
      ),
    ]),
  ];
}

async function measureModel(
  { stack, options, log }: BenchContext,
  run: ModelRun,
  extraNote: string,
): Promise<BenchRow[]> {
  const settings = {
    LLM_THREADS: String(options.threads),
    WORKER_CONCURRENCY: String(WORKER_CONCURRENCY),
    LLM_CONTEXT_SIZE: String(CONTEXT_SIZE),
  };
  const worker = await startRealWorker(stack, run.path, settings);
  let engine: EngineProcess<GenerationCall, GenerationTiming> | undefined;
  try {
    // The worker's own environment (UV_THREADPOOL_SIZE=1), so the baseline is the engine as the worker runs it.
    const env = appEnv("worker", {
      ...stack.baseEnv,
      ...settings,
      LLM_MODEL: run.path,
      SEQUENCES: settings.WORKER_CONCURRENCY,
    });
    const direct = await EngineProcess.start<GenerationCall, GenerationTiming>(
      "llama-direct",
      "baselines/llama-direct.process.js",
      env,
    );
    engine = direct;
    const body = generationBody(options.maxTokens);
    const jobs = await alternate(run.jobs, {
      subject: () => generateThroughSystem(stack, body),
      baseline: () => generateDirectly(direct, body),
    });
    const rows = modelRows(run, options.threads, jobs, extraNote);
    log(
      `  ${run.label}: ${rows.map((r) => `${r.subject.value} tok/s (${r.name.split("tok/s ")[1] ?? ""})`).join(", ")}, ${rows[0]?.baseline.value} tok/s direct`,
    );
    return rows;
  } finally {
    await Promise.all([worker.stop(), engine?.stop()]);
    await stack.resetQueues();
  }
}

export const generationRows: RowGroup = {
  name: "generation",
  run: async (ctx) => {
    const { options } = ctx;
    const fixture: ModelRun = {
      label: basename(options.model, ".gguf"),
      path: options.model,
      jobs: options.generations,
    };
    if (!options.largerModel) {
      return measureModel(ctx, fixture, "larger model shape: skipped in this run (--quick or --no-larger-model)");
    }
    const rows = await measureModel(ctx, fixture, `a larger model shape follows (${LARGER_MODEL_LABEL})`);
    const larger = await writeLargerModel(options.model);
    try {
      const run: ModelRun = {
        label: LARGER_MODEL_LABEL,
        path: larger.path,
        jobs: Math.min(options.generations, LARGER_MODEL_JOBS),
      };
      const note = `made offline from ${basename(options.model)}'s tokenizer: llama2.c stories42M's shape (dim 512, 8 layers, FFN 1376, ~26M parameters), random weights, so the text is gibberish; the cost per token is that shape's`;
      rows.push(...(await measureModel(ctx, run, note)));
    } finally {
      await larger.remove();
    }
    return rows;
  },
};
