import { QUEUES } from "@chorus/contracts";
import { redisKeys } from "@chorus/platform/redis";
import { Queue } from "bullmq";
import { basename } from "node:path";
import type { GenerationCall, GenerationTiming } from "../baselines/direct-engine-messages.js";
import { median } from "../metrics/stats.js";
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
import { GATEWAY_PREFIX, type BenchStack } from "../stack/bench-stack.js";
import { EngineProcess } from "../stack/engine-process.js";
import { ensureLlamaServer, startLlamaServer, type LlamaServer } from "../stack/llama-server.js";
import { startRealWorker } from "../stack/workers.js";
import { appEnv } from "@chorus/local-runtime";
import {
  aggregateRate,
  chatTurnsOf,
  conversation,
  jobsPerMinute,
  nextTurn,
  rotate,
  viaEngine,
  viaLlamaServer,
  viaService,
  type Completion,
  type InferenceRequest,
} from "./inference-jobs.js";
import type { BenchContext, RowGroup } from "./row-group.js";

/**
 * The worker as an inference server, next to llama.cpp's own server (same GGUF, threads,
 * slots and context per slot, built from the same llama.cpp source) and to its engine alone:
 * aggregate decode rate at 1, 2 and 4 jobs at once, time to first token of a conversation's next
 * turn (prompt cache), and a burst of short jobs (no failed attempt). Where a conversation's next turn
 * finds its cache among several workers is the routing group's (routing.rows.ts).
 */
const CONTEXT_PER_SLOT = 2048;
/** Status polls of the latency rows: far below the figures they measure. */
const LATENCY_POLL_MS = 2;
/** Status polls of the throughput rows: often enough to add little, rarely enough not to load the cores. */
const THROUGHPUT_POLL_MS = 20;
/** Status polls of the burst: hundreds of jobs wait at once, each polled like a patient client. */
const BURST_POLL_MS = 500;
/**
 * Next turns per --rounds: one next turn is ~0.1 s a side, and a median of 5 moved by ~0.1x from run
 * to run on a shared host, so these rows take three times as many samples.
 */
const NEXT_TURN_ROUNDS_PER_ROUND = 3;
/** The client of the targeted rows: it waits (Prefer: wait) instead of polling. */
const WAITS = { waits: true } as const;

interface Scale {
  levels: number[];
  maxTokens: number;
  burstJobs: number;
  conversationMessages: number;
}

const FULL: Scale = {
  levels: [1, 2, 4],
  maxTokens: 256,
  burstJobs: 200,
  conversationMessages: 10,
};
const QUICK: Scale = {
  levels: [1, 2],
  maxTokens: 16,
  burstJobs: 12,
  conversationMessages: 4,
};

interface Run {
  ctx: BenchContext;
  model: string;
  scale: Scale;
  llamaServer: string | null;
  anchorNote: string;
}

function row(name: string, subject: Figure, baseline: Figure, target: Target | null, notes: string[]): BenchRow {
  return makeRow({ group: "inference", name, subject, baseline, target, notes });
}

/** Starts a worker, the engine alone and llama-server with `slots` slots each, runs `body`, stops them. */
async function withSides<T>(
  run: Run,
  slots: number,
  body: (sides: { engine: EngineProcess<GenerationCall, GenerationTiming>; server: LlamaServer | null }) => Promise<T>,
): Promise<T> {
  const { stack, options } = run.ctx;
  const settings = {
    LLM_THREADS: String(options.threads),
    WORKER_CONCURRENCY: String(slots),
    LLM_CONTEXT_SIZE: String(CONTEXT_PER_SLOT),
  };
  const started: Array<{ stop(): Promise<void> }> = [];
  try {
    started.push(await startRealWorker(stack, run.model, settings));
    const engineEnv = appEnv("worker", {
      ...stack.baseEnv,
      ...settings,
      LLM_MODEL: run.model,
      SEQUENCES: String(slots),
    });
    const engine = await EngineProcess.start<GenerationCall, GenerationTiming>(
      "llama-direct",
      "baselines/llama-direct.process.js",
      engineEnv,
    );
    started.push(engine);
    const server = run.llamaServer
      ? await startLlamaServer(run.llamaServer, {
          model: run.model,
          threads: options.threads,
          slots,
          contextPerSlot: CONTEXT_PER_SLOT,
        })
      : null;
    if (server) started.push(server);
    return await body({ engine, server });
  } finally {
    await Promise.all(started.map((s) => s.stop()));
    await stack.resetQueues();
  }
}

async function decodeRateRows(run: Run): Promise<BenchRow[]> {
  const { options } = run.ctx;
  const turnsOf = await chatTurnsOf();
  const rows: BenchRow[] = [];
  for (const jobs of run.scale.levels) {
    const batch = (side: string, r: number): InferenceRequest[] =>
      Array.from({ length: jobs }, (_, i) => ({
        messages: conversation(`${side}${r}x${i}`, 1, 60),
        maxTokens: run.scale.maxTokens,
      }));
    const rates = await withSides(run, jobs, ({ engine, server }) => {
      const sides: Record<string, (r: number) => Promise<number>> = {
        service: (r) => aggregateRate(batch("s", r), (q) => viaService(run.ctx.stack, q, WAITS)),
        polled: (r) =>
          aggregateRate(batch("p", r), (q) => viaService(run.ctx.stack, q, { pollEveryMs: THROUGHPUT_POLL_MS })),
        engine: (r) => aggregateRate(batch("e", r), (q) => viaEngine(engine, q)),
      };
      if (server) sides.server = (r) => aggregateRate(batch("l", r), (q) => viaLlamaServer(server.url, turnsOf(q), q));
      // One unrecorded round warms every side (model pages, thread pools, caches of the system turn).
      return rotate(1, sides).then(() => rotate(options.rounds, sides));
    });
    const method = `${jobs} job(s) sent at once, ${run.scale.maxTokens} tokens each, ${options.rounds} rounds (order rotating) after a warm-up; ${options.threads} threads, ${jobs} slot(s) of ${CONTEXT_PER_SLOT} tokens on every side; ${basename(run.model)}`;
    const service = medianFigure(
      "the service, a client waiting (submit and status with Prefer: wait=60), all tokens / time to the last reply",
      rates.service ?? [],
      "tok/s",
    );
    const polled = medianFigure(
      `the service, a client polling the status every ${THROUGHPUT_POLL_MS} ms, all tokens / time to the last reply`,
      rates.polled ?? [],
      "tok/s",
    );
    const engine = medianFigure(
      "the worker's llama.cpp engine alone in a process, same jobs at once",
      rates.engine ?? [],
      "tok/s",
    );
    rows.push(
      row(`inference: ${jobs} job(s) at once, aggregate tok/s vs the engine alone`, service, engine, null, [method]),
    );
    if (rates.server) {
      const anchor = medianFigure(
        `llama-server (same llama.cpp commit), /v1/chat/completions with the worker's chat turns`,
        rates.server,
        "tok/s",
      );
      rows.push(
        row(`inference: ${jobs} job(s) at once, aggregate tok/s vs llama-server`, service, anchor, ratioAtLeast(0.9), [
          method,
          run.anchorNote,
        ]),
      );
      const pollNote = `what ${1000 / THROUGHPUT_POLL_MS} status polls a second per job cost on ${options.threads} shared cores (no target: a client that waits pays none of it)`;
      rows.push(
        row(
          `inference: ${jobs} job(s) at once, aggregate tok/s polled every ${THROUGHPUT_POLL_MS} ms vs llama-server`,
          polled,
          anchor,
          null,
          [method, pollNote, run.anchorNote],
        ),
      );
    }
  }
  return rows;
}

async function nextTurnRows(run: Run): Promise<BenchRow[]> {
  const { options } = run.ctx;
  const turnsOf = await chatTurnsOf();
  const slots = 2;
  type Pair = { first: Completion; next: Completion };
  const talk = async (id: string, send: (q: InferenceRequest) => Promise<Completion>): Promise<Pair> => {
    const messages = conversation(id, run.scale.conversationMessages);
    const first = await send({ messages, maxTokens: 1 });
    return { first, next: await send({ messages: nextTurn(messages), maxTokens: 1 }) };
  };
  const results = await withSides(run, slots, ({ engine, server }) => {
    const sides: Record<string, (r: number) => Promise<Pair>> = {
      service: (r) => talk(`s${r}`, (q) => viaService(run.ctx.stack, q, WAITS)),
      polled: (r) => talk(`p${r}`, (q) => viaService(run.ctx.stack, q, { pollEveryMs: LATENCY_POLL_MS })),
      engine: (r) => talk(`e${r}`, (q) => viaEngine(engine, q)),
    };
    if (server) sides.server = (r) => talk(`l${r}`, (q) => viaLlamaServer(server.url, turnsOf(q), q));
    return rotate(1, sides).then(() => rotate(options.rounds * NEXT_TURN_ROUNDS_PER_ROUND, sides));
  });
  const service = results.service ?? [];
  const prompt = median(service.map((p) => p.next.promptTokens));
  const cached = median(service.map((p) => p.next.cachedTokens));
  const method = `time to the first token = a request with max_tokens 1, sent → result seen; a new conversation each round (${run.scale.conversationMessages} messages, its next turn ${prompt} prompt tokens of which ${cached} came from the cache, median), ${slots} slots, ${options.threads} threads; ${basename(run.model)}`;
  const next = medianFigure(
    "the service, a client waiting (Prefer: wait): the next turn of a conversation (its first turn was just answered)",
    service.map((p) => p.next.ms),
    "ms",
    2,
  );
  const first = medianFigure(
    "the service: the same conversation's first turn (only the character's system turn cached)",
    service.map((p) => p.first.ms),
    "ms",
    2,
  );
  const polled = medianFigure(
    `the service, a client polling every ${LATENCY_POLL_MS} ms: the next turn`,
    (results.polled ?? []).map((p) => p.next.ms),
    "ms",
    2,
  );
  const alone = medianFigure(
    "the worker's llama.cpp engine alone in a process: the same conversation's next turn",
    (results.engine ?? []).map((p) => p.next.ms),
    "ms",
    2,
  );
  const rows = [
    row("inference: next turn, time to first token vs its first turn", next, first, ratioAtMost(0.3), [method]),
    row("inference: next turn, time to first token vs the engine alone", next, alone, null, [
      method,
      "what the gateway, the queue and the status record add to the engine's own next turn",
    ]),
  ];
  if (results.server) {
    const anchor = medianFigure(
      "llama-server with cache_prompt: the same conversation's next turn",
      results.server.map((p) => p.next.ms),
      "ms",
      2,
    );
    rows.push(
      row("inference: next turn, time to first token vs llama-server", next, anchor, ratioAtMost(1.2), [
        method,
        run.anchorNote,
      ]),
    );
    rows.push(
      row(
        `inference: next turn, time to first token polled every ${LATENCY_POLL_MS} ms vs llama-server`,
        polled,
        anchor,
        null,
        [method, run.anchorNote],
      ),
    );
  }
  return rows;
}

/** Failed attempts in the gateway's text queue: every attempt of a job beyond its first, and failures. */
async function failedAttempts(stack: BenchStack): Promise<{ attempts: number; jobs: number }> {
  const queue = new Queue(QUEUES.text, {
    connection: stack.redis,
    prefix: redisKeys(GATEWAY_PREFIX).bullPrefix(QUEUES.text),
  });
  try {
    const jobs = await queue.getJobs(["completed", "failed"]);
    const attempts = jobs.reduce(
      (sum, job) => sum + Math.max(job.attemptsStarted - 1, 0) + (job.failedReason ? 1 : 0),
      0,
    );
    return { attempts, jobs: jobs.length };
  } finally {
    await queue.close();
  }
}

async function burstRows(run: Run): Promise<BenchRow[]> {
  const slots = 2; // the worker's default WORKER_CONCURRENCY: the burst is 100x its slots
  const jobs = Array.from({ length: run.scale.burstJobs }, (_, i): InferenceRequest => ({
    messages: conversation(`b${i}`, 1, 40),
    maxTokens: 8,
  }));
  const measured = await withSides({ ...run, llamaServer: null }, slots, async ({ engine }) => {
    const service = await jobsPerMinute(jobs, (q) => viaService(run.ctx.stack, q, { pollEveryMs: BURST_POLL_MS }));
    const failures = await failedAttempts(run.ctx.stack);
    return { service, engine: await jobsPerMinute(jobs, (q) => viaEngine(engine, q)), failures };
  });
  const method = `${jobs.length} jobs of max_tokens 8 submitted at once to one worker with ${slots} slots, each polled every ${BURST_POLL_MS} ms; the engine alone gets the same ${jobs.length} calls at once`;
  const failed: Figure = {
    label: "failed attempts of those jobs (BullMQ attempts beyond the first, and failures)",
    value: measured.failures.attempts,
    unit: "count",
  };
  const submitted: Figure = { label: "jobs that ended in the queue", value: measured.failures.jobs, unit: "count" };
  return [
    row(
      "inference: burst of short jobs, jobs per minute",
      medianFigure("the service", [measured.service], "jobs/min", 0),
      medianFigure("the engine alone", [measured.engine], "jobs/min", 0),
      null,
      [method],
    ),
    row(
      "inference: burst of short jobs, failed attempts",
      failed,
      submitted,
      { of: "subject", op: "<", value: 1, text: "0 failed attempts" },
      [method],
    ),
  ];
}

export const inferenceRows: RowGroup = {
  name: "inference",
  run: async (ctx) => {
    const { options, log } = ctx;
    const scale = options.quick ? QUICK : FULL;
    const anchor =
      options.anchor === "llama-server" ? await ensureLlamaServer(log) : { skipped: "skipped: --anchor none" };
    const llamaServer = "path" in anchor ? anchor.path : null;
    const anchorNote =
      "path" in anchor
        ? `llama-server ${anchor.path} (the worker's build of node-llama-cpp's bundled llama.cpp ${anchor.commit}), run with its own defaults`
        : `llama-server rows ${anchor.skipped}`;
    if (!llamaServer) log(`  ${anchorNote}`);
    const larger = options.largerModel ? await writeLargerModel(options.model) : null;
    try {
      const model = larger?.path ?? options.model;
      const run: Run = { ctx, model, scale, llamaServer, anchorNote };
      const rows = [...(await decodeRateRows(run)), ...(await nextTurnRows(run)), ...(await burstRows(run))];
      const modelNote = larger
        ? `model: ${LARGER_MODEL_LABEL}, made offline (replies run to max_tokens)`
        : `model: ${basename(options.model)}`;
      for (const r of rows) r.notes.push(...(llamaServer ? [modelNote] : [modelNote, anchorNote]));
      log(
        `  ${rows.map((r) => `${r.name.replace("inference: ", "")}: ${r.subject.value} vs ${r.baseline.value}`).join("; ")}`,
      );
      return rows;
    } finally {
      await larger?.remove();
    }
  },
};
