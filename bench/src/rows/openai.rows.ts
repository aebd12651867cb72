import { validateGenerationRequest } from "@chorus/contracts";
import { basename } from "node:path";
import { nowMs } from "../metrics/clock.js";
import { LARGER_MODEL_LABEL, writeLargerModel } from "../models/larger-model.js";
import {
  makeRow,
  medianFigure,
  ratioAtLeast,
  ratioAtMost,
  type BenchRow,
  type Figure,
  type Target,
} from "../report/bench-row.js";
import type { BenchStack } from "../stack/bench-stack.js";
import type { BenchChild } from "../stack/child-processes.js";
import { ensureLlamaServer, startLlamaServer, type LlamaServer } from "../stack/llama-server.js";
import { startRealWorker } from "../stack/workers.js";
import { buildChatTurns, loadCharacterCatalog, sseJsonEvents } from "@chorus/worker/llm";
import { apiBody, conversation, rotate, SAMPLING, viaService, type InferenceRequest } from "./inference-jobs.js";
import type { BenchContext, RowGroup } from "./row-group.js";

/**
 * The OpenAI-compatible front door against what it stands on. Streamed chat: time to the
 * first content delta through the service against llama-server's own `stream: true` (same binary
 * and model), and the decode rate while streaming against the same request not streamed; a whole
 * `/v1/chat/completions` against the native submit + `Prefer: wait` of the same job.
 */
const CONTEXT_PER_SLOT = 2048;
const SEED = 42;

interface ChatTiming {
  /** Sent → the first chunk with content, ms (NaN when not streamed). */
  firstDeltaMs: number;
  /** Sent → the whole answer read, ms. */
  ms: number;
  tokens: number;
}

interface ChatChunk {
  choices?: Array<{ delta?: { content?: string } }>;
  usage?: { completion_tokens?: number };
}

/** Reads an OpenAI chat stream: when its first content arrived and the usage it ended with. */
async function readChatStream(body: ReadableStream<Uint8Array>, sentAt: number): Promise<ChatTiming> {
  let firstDeltaMs = Number.NaN;
  let tokens = Number.NaN;
  for await (const chunk of sseJsonEvents<ChatChunk>(body)) {
    if (Number.isNaN(firstDeltaMs) && chunk.choices?.[0]?.delta?.content) firstDeltaMs = nowMs() - sentAt;
    if (chunk.usage?.completion_tokens !== undefined) tokens = chunk.usage.completion_tokens;
  }
  return { firstDeltaMs, ms: nowMs() - sentAt, tokens };
}

/** POST /v1/chat/completions (the service's or llama-server's), whole or streamed, timed. */
async function chat(
  baseUrl: string,
  headers: Record<string, string>,
  body: Record<string, unknown>,
  stream: boolean,
): Promise<ChatTiming> {
  const sentAt = nowMs();
  const payload = { ...body, ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}) };
  const res = await fetch(`${baseUrl}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(payload),
  });
  if (!res.ok || !res.body)
    throw new Error(`${baseUrl}/v1/chat/completions answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
  if (stream) return readChatStream(res.body, sentAt);
  const whole = (await res.json()) as { usage?: { completion_tokens?: number } };
  return { firstDeltaMs: Number.NaN, ms: nowMs() - sentAt, tokens: whole.usage?.completion_tokens ?? Number.NaN };
}

/**
 * The request as an OpenAI client sends it to the service: its messages as user/assistant turns. No
 * seed: a client's seed makes the job reproducible (its prompt read afresh, decoded alone), which
 * neither the native side nor llama-server's (`cache_prompt: true`) pays; the rows compare rates.
 */
function serviceBody(request: InferenceRequest) {
  const messages = request.messages.map((m) => ({ role: m.role === "You" ? "user" : "assistant", content: m.content }));
  return { model: "default", messages, max_tokens: request.maxTokens, ...SAMPLING };
}

function row(name: string, subject: Figure, baseline: Figure, target: Target | null, notes: string[]): BenchRow {
  return makeRow({ group: "openai", name, subject, baseline, target, notes });
}

const rate = (timing: { tokens: number; ms: number }) => timing.tokens / (timing.ms / 1000);

interface Sides {
  stack: BenchStack;
  server: LlamaServer | null;
}

/** A worker and (with the anchor) llama-server with one slot each, on the same threads. */
async function withSides<T>(
  ctx: BenchContext,
  model: string,
  llamaServer: string | null,
  body: (sides: Sides) => Promise<T>,
): Promise<T> {
  const { stack, options } = ctx;
  const started: Array<{ stop(): Promise<void> } | BenchChild> = [];
  try {
    started.push(
      await startRealWorker(stack, model, {
        LLM_THREADS: String(options.threads),
        WORKER_CONCURRENCY: "1",
        LLM_CONTEXT_SIZE: String(CONTEXT_PER_SLOT),
      }),
    );
    const server = llamaServer
      ? await startLlamaServer(llamaServer, {
          model,
          threads: options.threads,
          slots: 1,
          contextPerSlot: CONTEXT_PER_SLOT,
        })
      : null;
    if (server) started.push(server);
    return await body({ stack, server });
  } finally {
    await Promise.all(started.map((s) => s.stop()));
    await stack.resetQueues();
  }
}

async function measure(ctx: BenchContext, model: string, llamaServer: string | null, maxTokens: number) {
  const character = (await loadCharacterCatalog()).default;
  const turnsOf = (request: InferenceRequest) =>
    buildChatTurns(validateGenerationRequest("default", apiBody(request)), character);
  const auth = { authorization: `Bearer ${ctx.stack.apiKey}` };
  const request = (side: string, r: number): InferenceRequest => ({
    messages: conversation(`${side}${r}`, 1, 60),
    maxTokens,
  });
  return withSides(ctx, model, llamaServer, ({ stack, server }) => {
    const sides: Record<string, (r: number) => Promise<ChatTiming>> = {
      streamed: (r) => chat(stack.gateway.url, auth, serviceBody(request("s", r)), true),
      whole: (r) => chat(stack.gateway.url, auth, serviceBody(request("w", r)), false),
      native: async (r) => {
        const done = await viaService(stack, request("n", r), { waits: true });
        return { firstDeltaMs: Number.NaN, ms: done.ms, tokens: done.tokens };
      },
    };
    if (server) {
      const llamaBody = (q: InferenceRequest) => ({
        messages: turnsOf(q),
        max_tokens: q.maxTokens,
        ...SAMPLING,
        seed: SEED,
        cache_prompt: true,
      });
      sides.llama = (r) => chat(server.url, {}, llamaBody(request("l", r)), true);
      sides.llamaWhole = (r) => chat(server.url, {}, llamaBody(request("lw", r)), false);
    }
    // One unrecorded round warms every side; then the order rotates each round.
    return rotate(1, sides).then(() => rotate(ctx.options.rounds * 2, sides));
  });
}

export const openAiRows: RowGroup = {
  name: "openai",
  run: async (ctx) => {
    const { options, log } = ctx;
    const anchor =
      options.anchor === "llama-server" ? await ensureLlamaServer(log) : { skipped: "skipped: --anchor none" };
    const llamaServer = "path" in anchor ? anchor.path : null;
    const larger = options.largerModel ? await writeLargerModel(options.model) : null;
    try {
      const model = larger?.path ?? options.model;
      const maxTokens = options.quick ? 16 : 128;
      const timings = await measure(ctx, model, llamaServer, maxTokens);
      const method = `one request at a time, ${maxTokens} tokens, ${options.rounds * 2} rounds (order rotating) after a warm-up; one slot, ${options.threads} threads; model ${larger ? LARGER_MODEL_LABEL : basename(options.model)}`;
      const streamed = timings.streamed ?? [];
      const whole = timings.whole ?? [];
      const rows: BenchRow[] = [];
      if (timings.llama) {
        const ttft = medianFigure(
          "the service: POST /v1/chat/completions with stream: true, sent → first content delta",
          streamed.map((t) => t.firstDeltaMs),
          "ms",
          2,
        );
        const anchorTtft = medianFigure(
          "llama-server's own /v1/chat/completions with stream: true, same chat turns",
          timings.llama.map((t) => t.firstDeltaMs),
          "ms",
          2,
        );
        rows.push(
          row(
            "openai: streamed chat, time to the first content delta vs llama-server streaming",
            ttft,
            anchorTtft,
            ratioAtMost(1.15),
            [method],
          ),
        );
        // What a per-token stream costs llama-server itself, in the same run: the reference for the service's own ratio
        // below.
        rows.push(
          row(
            "openai: llama-server's own streamed chat, tok/s vs not streamed",
            medianFigure(
              "llama-server's /v1/chat/completions streamed: completion tokens / time to the last chunk",
              timings.llama.map(rate),
              "tok/s",
            ),
            medianFigure("llama-server's /v1/chat/completions whole", (timings.llamaWhole ?? []).map(rate), "tok/s"),
            null,
            [method, "no target: the reference for the service's streamed/whole ratio"],
          ),
        );
      } else {
        log(`  openai: llama-server row ${"skipped" in anchor ? anchor.skipped : ""}`);
      }
      rows.push(
        row(
          "openai: streamed chat, tok/s vs not streamed",
          medianFigure(
            "the service, /v1/chat/completions streamed: completion tokens / time to the last chunk",
            streamed.map(rate),
            "tok/s",
          ),
          medianFigure("the service, /v1/chat/completions whole", whole.map(rate), "tok/s"),
          ratioAtLeast(0.9),
          [method],
        ),
        row(
          "openai: /v1/chat/completions whole, tok/s vs native submit + Prefer: wait",
          medianFigure("the service, /v1/chat/completions whole", whole.map(rate), "tok/s"),
          medianFigure(
            "the service, POST /api/text/default with Prefer: wait=60 (the same job)",
            (timings.native ?? []).map(rate),
            "tok/s",
          ),
          ratioAtLeast(0.95),
          [method],
        ),
      );
      return rows;
    } finally {
      await larger?.remove();
    }
  },
};
