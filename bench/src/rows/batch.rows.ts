import { basename } from "node:path";
import type { GenerationCall, GenerationTiming } from "../baselines/direct-engine-messages.js";
import { nowMs, sleep } from "../metrics/clock.js";
import { makeRow, medianFigure, ratioAtLeast, type BenchRow } from "../report/bench-row.js";
import { EngineProcess } from "../stack/engine-process.js";
import { ensureLlamaServer, startLlamaServer, type LlamaServer } from "../stack/llama-server.js";
import { httpJson } from "../stack/net.js";
import { startRealWorker } from "../stack/workers.js";
import type { BenchStack } from "../stack/bench-stack.js";
import { appEnv } from "@chorus/local-runtime";
import { conversation, jobsPerMinute, rotate, viaEngine, type InferenceRequest } from "./inference-jobs.js";
import type { BenchContext, RowGroup } from "./row-group.js";

/**
 * A batch of N short lines (16 tokens each) through the Batch API (file upload, batch create, status
 * polled until `completed`) next to the same N requests sent at once straight to llama-server alone
 * on the same slots (the worker's engine alone when llama-server is not at hand): jobs per minute of
 * each, in alternating rounds. The target is 0.9× the engine alone at 1,000 lines.
 */
const SLOTS = 2; // the worker's default WORKER_CONCURRENCY
const CONTEXT_PER_SLOT = 2048;
const MAX_TOKENS = 16;
const POLL_MS = 100;

const lineText = (i: number) =>
  conversation(`batch${i}`, 1, 40)
    .map((m) => m.content)
    .join(" ");

const lineBody = (i: number) => ({
  model: "default",
  messages: [{ role: "user", content: lineText(i) }],
  max_tokens: MAX_TOKENS,
});

/** Upload, create, poll: the batch's lines per minute, from the create to `completed` seen. */
async function viaBatch(stack: BenchStack, lines: number): Promise<number> {
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
    };
    if (polled.status === "completed" && polled.request_counts?.completed === lines)
      return (lines / ((nowMs() - startedAt) / 1000)) * 60;
    if (polled.status !== "in_progress" && polled.status !== "finalizing")
      throw new Error(`batch ${id} ended ${JSON.stringify(polled)}`);
    await sleep(POLL_MS);
  }
}

/** The same lines sent at once to llama-server's OpenAI-compatible endpoint. */
async function viaLlamaServerAlone(server: LlamaServer, lines: number): Promise<number> {
  const started = nowMs();
  await Promise.all(
    Array.from({ length: lines }, async (_, i) => {
      const answer = await httpJson("POST", `${server.url}/v1/chat/completions`, {}, lineBody(i));
      if (answer.status !== 200) throw new Error(`llama-server answered ${answer.status}`);
    }),
  );
  return (lines / ((nowMs() - started) / 1000)) * 60;
}

async function startBaseline(ctx: BenchContext, binary: string | null) {
  const { stack, options } = ctx;
  if (binary) {
    const server = await startLlamaServer(binary, {
      model: options.model,
      threads: options.threads,
      slots: SLOTS,
      contextPerSlot: CONTEXT_PER_SLOT,
    });
    return {
      label: "llama-server alone, same slots",
      send: (n: number) => viaLlamaServerAlone(server, n),
      stop: () => server.stop(),
    };
  }
  const env = appEnv("worker", {
    ...stack.baseEnv,
    LLM_THREADS: String(options.threads),
    LLM_CONTEXT_SIZE: String(CONTEXT_PER_SLOT),
    LLM_MODEL: options.model,
    SEQUENCES: String(SLOTS),
  });
  const engine = await EngineProcess.start<GenerationCall, GenerationTiming>(
    "llama-direct",
    "baselines/llama-direct.process.js",
    env,
  );
  const requests = (n: number) =>
    Array.from({ length: n }, (_, i): InferenceRequest => ({
      messages: conversation(`batch${i}`, 1, 40),
      maxTokens: MAX_TOKENS,
    }));
  return {
    label: "the worker's engine alone, same slots (llama-server not at hand)",
    send: (n: number) => jobsPerMinute(requests(n), (q) => viaEngine(engine, q)),
    stop: () => engine.stop(),
  };
}

export const batchRows: RowGroup = {
  name: "batch",
  run: async (ctx) => {
    const { stack, options, log } = ctx;
    const anchor = options.anchor === "llama-server" ? await ensureLlamaServer(log) : { skipped: "--anchor none" };
    const settings = {
      LLM_THREADS: String(options.threads),
      WORKER_CONCURRENCY: String(SLOTS),
      LLM_CONTEXT_SIZE: String(CONTEXT_PER_SLOT),
    };
    const worker = await startRealWorker(stack, options.model, settings);
    const baseline = await startBaseline(ctx, "path" in anchor ? anchor.path : null);
    try {
      const n = options.batchLines;
      const runs = await rotate(options.rounds, {
        service: () => viaBatch(stack, n),
        engine: () => baseline.send(n),
      });
      const row: BenchRow = makeRow({
        group: "batch",
        name: `batch: ${n} lines of ${MAX_TOKENS} tokens, jobs per minute`,
        subject: medianFigure("the Batch API: upload, create, polled until completed", runs.service, "jobs/min", 0),
        baseline: medianFigure(baseline.label, runs.engine, "jobs/min", 0),
        target: ratioAtLeast(0.9),
        notes: [
          `${options.rounds} round(s) per side, order rotating; ${SLOTS} slots on both sides, LLM_THREADS=${options.threads}, ${basename(options.model)}; the batch's window BATCH_WINDOW (default 4) lines queued at once, its status polled every ${POLL_MS} ms; the issue asks for 1,000 lines (--batch-lines)`,
          "the service's lines also carry the character's persona and chat template (the default model), the baseline's only the line's message",
        ],
      });
      log(`  batch: ${row.subject.value} jobs/min vs ${row.baseline.value} (${baseline.label})`);
      return [row];
    } finally {
      await Promise.all([worker.stop(), baseline.stop()]);
      await stack.resetQueues();
    }
  },
};
