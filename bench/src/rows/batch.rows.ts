import { basename } from "node:path";
import type { GenerationCall, GenerationTiming } from "../baselines/direct-engine-messages.js";
import { nowMs, sleep } from "../metrics/clock.js";
import { median } from "../metrics/stats.js";
import { LARGER_MODEL_LABEL, writeLargerModel } from "../models/larger-model.js";
import { makeRow, medianFigure, ratioAtLeast, type BenchRow } from "../report/bench-row.js";
import { EngineProcess } from "../stack/engine-process.js";
import { ensureLlamaServer, startLlamaServer } from "../stack/llama-server.js";
import { httpJson } from "../stack/net.js";
import { startRealWorker } from "../stack/workers.js";
import type { BenchStack } from "../stack/bench-stack.js";
import { GATEWAY_ENV } from "@chorus/gateway";
import { appEnv } from "@chorus/local-runtime";
import {
  chatTurnsOf,
  conversation,
  rotate,
  SAMPLING,
  viaEngine,
  viaLlamaServer,
  type Completion,
  type InferenceRequest,
} from "./inference-jobs.js";

import type { BenchContext, RowGroup } from "./row-group.js";

/**
 * A batch of N short lines (16 tokens each) through the Batch API (file upload, batch create, status
 * polled until `completed`) next to the same N requests sent straight to llama-server alone on the
 * same slots (the worker's engine alone when llama-server is not at hand) by a client that keeps as
 * many in flight as the batch's window keeps queued: jobs per minute of each, in alternating rounds.
 * llama-server is sent the very chat turns the worker builds (the default character's persona, then
 * the line's message), so both read the same prompt; each side's median prompt tokens are in the
 * notes. The target is 0.9× the engine alone at 1,000 lines.
 */
const SLOTS = 2; // the worker's default WORKER_CONCURRENCY
const CONTEXT_PER_SLOT = 2048;
const MAX_TOKENS = 16;
const POLL_MS = 100;
/**
 * The baseline's requests in flight: the gateway's default BATCH_WINDOW (lines queued or running at
 * once; the bench's gateway runs with it), so both sides keep the slots equally fed. Not all N at
 * once: llama-server answers HTTP on slots + 4 threads (server-http.cpp), and a thread stays with its
 * keep-alive connection, so a client with more connections than threads waits out idle ones; its
 * rate then came in two modes within one run (~530 and ~1,900 jobs/min on the fixture model at 100
 * at once, 850 and 1,780 at 16).
 */
const IN_FLIGHT = GATEWAY_ENV.BATCH_WINDOW.default;

/** Line i: one user message, sampled as the other inference rows sample. */
const lineRequest = (i: number): InferenceRequest => ({
  messages: conversation(`batch${i}`, 1, 40),
  maxTokens: MAX_TOKENS,
});

const lineBody = (i: number) => ({
  model: "default",
  messages: lineRequest(i).messages.map((m) => ({ role: "user", content: m.content })),
  max_tokens: MAX_TOKENS,
  ...SAMPLING,
});

/** A side's run: its jobs per minute, and the median of its requests' prompt tokens. */
interface BatchRun {
  perMinute: number;
  promptTokens: number;
}

/** Jobs per minute of `jobs` that took from `startedAt` until now. */
const perMinuteSince = (jobs: number, startedAt: number) => (jobs / ((nowMs() - startedAt) / 1000)) * 60;

/** The N lines sent through `send` (an engine alone), IN_FLIGHT at a time, each next line as one ends: its run. */
async function sendKeepingBusy(
  lines: number,
  send: (request: InferenceRequest) => Promise<Completion>,
): Promise<BatchRun> {
  const started = nowMs();
  let next = 0;
  let failed = false;
  const sender = async (): Promise<Completion[]> => {
    const answered: Completion[] = [];
    try {
      while (next < lines && !failed) answered.push(await send(lineRequest(next++)));
    } catch (error) {
      failed = true; // the round has failed: the other senders stop loading a server about to be stopped
      throw error;
    }
    return answered;
  };
  const done = (await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, lines) }, sender))).flat();
  return { perMinute: perMinuteSince(lines, started), promptTokens: median(done.map((c) => c.promptTokens)) };
}

/** The output file's lines' prompt tokens (`response.body.usage.prompt_tokens`). */
async function outputPromptTokens(stack: BenchStack, fileId: string): Promise<number[]> {
  const auth = { authorization: `Bearer ${stack.apiKey}` };
  const content = await (await fetch(`${stack.gateway.url}/v1/files/${fileId}/content`, { headers: auth })).text();
  return content
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as { response?: { body?: { usage?: { prompt_tokens?: number } } } })
    .map((line) => line.response?.body?.usage?.prompt_tokens ?? Number.NaN);
}

/** Upload, create, poll: the batch's lines per minute, from the create to `completed` seen. */
async function viaBatch(stack: BenchStack, lines: number): Promise<BatchRun> {
  const auth = { authorization: `Bearer ${stack.apiKey}` };
  const jsonl = Array.from({ length: lines }, (_, i) =>
    JSON.stringify({ custom_id: `r${i}`, method: "POST", url: "/v1/chat/completions", body: lineBody(i) }),
  ).join("\n");
  const form = new FormData();
  form.append("purpose", "batch");
  form.append("file", new Blob([jsonl]), "bench.jsonl");
  const uploaded = await fetch(`${stack.gateway.url}/v1/files`, { method: "POST", headers: auth, body: form });
  const file = (await uploaded.json()) as { id?: string };
  if (!file.id) throw new Error(`upload failed: ${uploaded.status} ${JSON.stringify(file)}`);
  const startedAt = nowMs();
  const body = { input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h" };
  const created = await httpJson("POST", `${stack.gateway.url}/v1/batches`, auth, body);
  const id = (created.body as { id?: string }).id;
  if (created.status !== 200 || !id) throw new Error(`batch create failed: ${created.status}`);
  for (;;) {
    const polled = (await httpJson("GET", `${stack.gateway.url}/v1/batches/${id}`, auth)).body as {
      status?: string;
      request_counts?: { completed: number };
      output_file_id?: string;
    };
    if (polled.status === "completed" && polled.request_counts?.completed === lines && polled.output_file_id) {
      const perMinute = perMinuteSince(lines, startedAt);
      return { perMinute, promptTokens: median(await outputPromptTokens(stack, polled.output_file_id)) };
    }
    if (polled.status !== "in_progress" && polled.status !== "finalizing")
      throw new Error(`batch ${id} ended ${JSON.stringify(polled)}`);
    await sleep(POLL_MS);
  }
}

async function startBaseline(ctx: BenchContext, model: string, binary: string | null) {
  const { stack, options } = ctx;
  if (binary) {
    const server = await startLlamaServer(binary, {
      model,
      threads: options.threads,
      slots: SLOTS,
      contextPerSlot: CONTEXT_PER_SLOT,
    });
    const turnsOf = await chatTurnsOf();
    return {
      label: "llama-server alone, same slots",
      // llama-server's OpenAI-compatible endpoint, sent the worker's own chat turns.
      send: (n: number) => sendKeepingBusy(n, (request) => viaLlamaServer(server.url, turnsOf(request), request)),
      stop: () => server.stop(),
    };
  }
  const env = appEnv("worker", {
    ...stack.baseEnv,
    LLM_THREADS: String(options.threads),
    LLM_CONTEXT_SIZE: String(CONTEXT_PER_SLOT),
    LLM_MODEL: model,
    SEQUENCES: String(SLOTS),
  });
  const engine = await EngineProcess.start<GenerationCall, GenerationTiming>(
    "llama-direct",
    "baselines/llama-direct.process.js",
    env,
  );
  return {
    label: "the worker's engine alone, same slots (llama-server not at hand)",
    send: (n: number) => sendKeepingBusy(n, (request) => viaEngine(engine, request)),
    stop: () => engine.stop(),
  };
}

const promptTokens = (runs: BatchRun[]) => median(runs.map((run) => run.promptTokens));

/** The batch row on one model: the service and the engine alone in rotating rounds. */
async function batchRow(ctx: BenchContext, model: { path: string; label: string }, llamaServer: string | null) {
  const { stack, options, log } = ctx;
  const settings = {
    LLM_THREADS: String(options.threads),
    WORKER_CONCURRENCY: String(SLOTS),
    LLM_CONTEXT_SIZE: String(CONTEXT_PER_SLOT),
  };
  const worker = await startRealWorker(stack, model.path, settings);
  const baseline = await startBaseline(ctx, model.path, llamaServer);
  try {
    const n = options.batchLines;
    const runs = await rotate(options.rounds, {
      service: () => viaBatch(stack, n),
      engine: () => baseline.send(n),
    });
    const row: BenchRow = makeRow({
      group: "batch",
      name: `batch: ${n} lines of ${MAX_TOKENS} tokens, ${model.label}, jobs per minute`,
      subject: medianFigure(
        "the Batch API: upload, create, polled until completed",
        runs.service.map((run) => run.perMinute),
        "jobs/min",
        0,
      ),
      baseline: medianFigure(
        baseline.label,
        runs.engine.map((run) => run.perMinute),
        "jobs/min",
        0,
      ),
      target: ratioAtLeast(0.9),
      notes: [
        `${options.rounds} round(s) per side, order rotating; ${SLOTS} slots on both sides, LLM_THREADS=${options.threads}, ${model.label}; the batch's window BATCH_WINDOW (default ${IN_FLIGHT}) lines queued at once, its status polled every ${POLL_MS} ms; the engine alone sent ${IN_FLIGHT} lines at a time; the issue asks for 1,000 lines (--batch-lines)`,
        `the same prompt on both sides (the default character's system turn, then the line): median prompt tokens ${promptTokens(runs.service)} through the service, ${promptTokens(runs.engine)} alone`,
      ],
    });
    log(`  ${row.name}: ${row.subject.value} jobs/min vs ${row.baseline.value} (${baseline.label})`);
    return row;
  } finally {
    await Promise.all([worker.stop(), baseline.stop()]);
    await stack.resetQueues();
  }
}

/**
 * On the fixture model a 16-token job is a few milliseconds of engine work, so the row weighs the
 * service's own cost per job at its heaviest; on the larger model shape (unless --no-larger-model)
 * the engine's share is nearer a real model's.
 */
export const batchRows: RowGroup = {
  name: "batch",
  run: async (ctx) => {
    const { options, log } = ctx;
    const anchor = options.anchor === "llama-server" ? await ensureLlamaServer(log) : { skipped: "--anchor none" };
    const llamaServer = "path" in anchor ? anchor.path : null;
    const rows = [await batchRow(ctx, { path: options.model, label: basename(options.model) }, llamaServer)];
    if (!options.largerModel) return rows;
    const larger = await writeLargerModel(options.model);
    try {
      rows.push(await batchRow(ctx, { path: larger.path, label: LARGER_MODEL_LABEL }, llamaServer));
    } finally {
      await larger.remove();
    }
    return rows;
  },
};
