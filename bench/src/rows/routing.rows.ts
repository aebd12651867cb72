import { redisKeys } from "@chorus/platform/redis";
import { basename } from "node:path";
import { median, percentile, round } from "../metrics/stats.js";
import { LARGER_MODEL_LABEL, writeLargerModel } from "../models/larger-model.js";
import { makeRow, medianFigure, type BenchRow, type Figure, type Target } from "../report/bench-row.js";
import { ensureLlamaServer, startLlamaServer, type LlamaServer } from "../stack/llama-server.js";
import { startRoundRobinProxy, type RoundRobinProxy } from "../stack/round-robin-proxy.js";
import { GATEWAY_PREFIX } from "../stack/bench-stack.js";
import { freePort } from "../stack/net.js";
import { startRealWorker, untilTextQueue } from "../stack/workers.js";
import {
  chatTurnsOf,
  conversation,
  jobsPerMinute,
  viaLlamaServer,
  viaService,
  type Completion,
  type InferenceRequest,
  type Message,
} from "./inference-jobs.js";
import type { BenchContext, RowGroup } from "./row-group.js";

/**
 * Cache-aware routing. Chats of several turns on two workers of two slots each, routing
 * on and off, against one worker with the same four slots and against two llama-servers of two
 * slots behind a round-robin balancer (what a user would build without Chorus): the share of later
 * turns' prompt tokens served from cache and their latency; and what routing costs one-turn jobs.
 */
const CONTEXT_PER_SLOT = 2048;
/**
 * What a chat has behind it before the measured turns (You, Bot, ... You; ~60 tokens a message): a
 * character chat's history, long beside one turn's new message, as in the chats routing is for (~800 tokens in all:
 * with the prompt and six turns it stays within the 2048 tokens of a slot, so nothing is trimmed).
 */
const OPENING_MESSAGES = 13;
const OPENING_CHARS_PER_MESSAGE = 100;
const FOLLOW_UPS = ["What happened next?", "And then?", "Why did they do that?", "Where did they go?", "Tell me more."];
const WAITS = { waits: true } as const;

interface Scale {
  chatCounts: number[];
  turns: number;
  replyTokens: number;
  rounds: number;
  burstJobs: number;
  burstTokens: number;
}
const FULL: Scale = { chatCounts: [4, 16], turns: 6, replyTokens: 32, rounds: 2, burstJobs: 32, burstTokens: 32 };
const QUICK: Scale = { chatCounts: [4], turns: 3, replyTokens: 8, rounds: 1, burstJobs: 8, burstTokens: 8 };

type Side = "on" | "off" | "one" | "balanced";
const SIDES: Side[] = ["on", "off", "one", "balanced"];
const SIDE_LABELS: Record<Side, string> = {
  on: "2 workers x 2 slots, routing on",
  off: "2 workers x 2 slots, routing off",
  one: "1 worker x 4 slots",
  balanced: "2 llama-servers x 2 slots, round robin",
};

/** Later turns (after each chat's first) of one side at one chat count, pooled over rounds. */
interface Turns {
  prompt: number;
  cached: number;
  ms: number[];
  /** The workers' routing decisions while these chats ran (routing_decisions_total), by decision. */
  decisions: Record<string, number>;
}

type Send = (request: InferenceRequest) => Promise<Completion>;

/** A side under test: how to send a turn, and (service sides) the workers' routing decisions so far. */
interface SideUnderTest {
  send: Send;
  decisions: () => Promise<Record<string, number>>;
}

interface Run {
  ctx: BenchContext;
  model: string;
  scale: Scale;
  llamaServer: string | null;
}

/** `count` chats at once, each `turns` turns, sending back each reply as a chat client does. */
async function chat(send: Send, count: number, scale: Scale, tag: string): Promise<Turns> {
  const later: Turns = { prompt: 0, cached: 0, ms: [], decisions: {} };
  await Promise.all(
    Array.from({ length: count }, async (_, c) => {
      let messages: Message[] = conversation(`${tag}c${c}`, OPENING_MESSAGES, OPENING_CHARS_PER_MESSAGE);
      for (let turn = 0; turn < scale.turns; turn++) {
        const done = await send({ messages, maxTokens: scale.replyTokens });
        if (turn > 0) {
          later.prompt += done.promptTokens;
          later.cached += done.cachedTokens;
          later.ms.push(done.ms);
        }
        const at = messages.length;
        const followUp = FOLLOW_UPS[turn % FOLLOW_UPS.length]!;
        messages = [
          ...messages,
          { role: "Bot", content: done.reply ?? "", index: at },
          { role: "You", content: followUp, index: at + 1 },
        ];
      }
    }),
  );
  return later;
}

/** Sums the `routing_decisions_total` counters of these workers' /metrics, by decision. */
async function routingDecisions(metricsUrls: string[]): Promise<Record<string, number>> {
  const sums: Record<string, number> = {};
  for (const url of metricsUrls) {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    const text = await response.text();
    for (const [, decision, value] of text.matchAll(/^routing_decisions_total\{decision="(\w+)"\} (\d+)/gm))
      sums[decision!] = (sums[decision!] ?? 0) + Number(value);
  }
  return sums;
}

function addCounts(into: Record<string, number>, from: Record<string, number>, sign = 1): Record<string, number> {
  const sum = { ...into };
  for (const [key, value] of Object.entries(from)) sum[key] = (sum[key] ?? 0) + sign * value;
  return sum;
}

/** Starts a side's processes, runs `body` against it, stops them. */
async function withSide<T>(run: Run, side: Side, body: (under: SideUnderTest) => Promise<T>): Promise<T> {
  const { stack, options } = run.ctx;
  const half = String(Math.max(1, Math.floor(options.threads / 2)));
  const base = { LLM_CONTEXT_SIZE: String(CONTEXT_PER_SLOT) };
  const started: Array<{ stop(): Promise<void> }> = [];
  try {
    if (side === "balanced") {
      const servers: LlamaServer[] = [];
      for (let i = 0; i < 2; i++) {
        const settings = { model: run.model, threads: Number(half), slots: 2, contextPerSlot: CONTEXT_PER_SLOT };
        const server = await startLlamaServer(run.llamaServer!, settings);
        servers.push(server);
        started.push(server);
      }
      const proxy: RoundRobinProxy = await startRoundRobinProxy(servers.map((s) => s.url));
      started.push(proxy);
      const turnsOf = await chatTurnsOf();
      const send: Send = (request) => viaLlamaServer(proxy.url, turnsOf(request), request);
      return await body({ send, decisions: () => Promise.resolve({}) });
    }
    const workers: Array<Record<string, string>> =
      side === "one"
        ? [{ ...base, WORKER_CONCURRENCY: "4", LLM_THREADS: String(options.threads) }]
        : [0, 1].map(() => ({
            ...base,
            WORKER_CONCURRENCY: "2",
            LLM_THREADS: half,
            ...(side === "off" ? { ROUTE_MAX_WAIT_MS: "0" } : {}),
          }));
    const metricsUrls: string[] = [];
    for (const settings of workers) {
      const port = await freePort();
      metricsUrls.push(`http://127.0.0.1:${port}/metrics`);
      started.push(await startRealWorker(stack, run.model, { ...settings, WORKER_HTTP_PORT: String(port) }));
    }
    // Every worker announces its slots once its engine is loaded (WorkerPresence): all of them, before any chat.
    const presence = redisKeys(GATEWAY_PREFIX).workerSlots();
    await untilTextQueue(
      stack,
      GATEWAY_PREFIX,
      "not every worker ready",
      async () => {
        return (await stack.redis.hlen(presence)) >= workers.length;
      },
      60_000,
    );
    const send: Send = (request) => viaService(stack, request, WAITS);
    return await body({ send, decisions: () => routingDecisions(metricsUrls) });
  } finally {
    for (const process of started.reverse()) await process.stop();
    await stack.resetQueues();
  }
}

function sidesOf(run: Run): Side[] {
  return SIDES.filter((side) => side !== "balanced" || run.llamaServer !== null);
}

/** Every side's later turns at every chat count; each round visits the sides in a rotated order. */
async function measureChats(run: Run): Promise<Map<string, Turns>> {
  const results = new Map<string, Turns>();
  const sides = sidesOf(run);
  for (let round = 0; round < run.scale.rounds; round++) {
    for (let i = 0; i < sides.length; i++) {
      const side = sides[(round + i) % sides.length]!;
      await withSide(run, side, async ({ send, decisions }) => {
        for (const count of run.scale.chatCounts) {
          run.ctx.log(`  routing: ${SIDE_LABELS[side]}, ${count} chats, round ${round + 1}`);
          const before = await decisions();
          const turns = await chat(send, count, run.scale, `r${round}${side}${count}`);
          const made = addCounts(await decisions(), before, -1);
          const key = `${side}/${count}`;
          const sofar = results.get(key) ?? { prompt: 0, cached: 0, ms: [], decisions: {} };
          results.set(key, {
            prompt: sofar.prompt + turns.prompt,
            cached: sofar.cached + turns.cached,
            ms: [...sofar.ms, ...turns.ms],
            decisions: addCounts(sofar.decisions, made),
          });
        }
      });
    }
  }
  return results;
}

/** Percent of the later turns' prompt tokens that came from the cache. */
function share(turns: Turns | undefined): number {
  return turns && turns.prompt > 0 ? round((100 * turns.cached) / turns.prompt, 1) : Number.NaN;
}

function latency(label: string, turns: Turns | undefined): Figure {
  const ms = turns?.ms ?? [];
  return {
    label,
    value: round(median(ms), 1),
    unit: "ms",
    p50Ms: round(median(ms), 1),
    p99Ms: round(percentile(ms, 95), 1),
    samples: ms.length,
  };
}

function row(name: string, subject: Figure, baseline: Figure, target: Target | null, notes: string[]): BenchRow {
  return makeRow({ group: "routing", name, subject, baseline, target, notes });
}

function chatRows(run: Run, results: Map<string, Turns>): BenchRow[] {
  const rows: BenchRow[] = [];
  const { turns } = run.scale;
  const method = `chats of ${turns} turns (${OPENING_MESSAGES} messages of history, ~${OPENING_CHARS_PER_MESSAGE} characters each, replies of ${run.scale.replyTokens} tokens sent back as the next turn's history), all at once, ${run.scale.rounds} round(s) per side, sides rotated; later turns = each chat's turns after its first; the service's clients wait (Prefer: wait)`;
  const shares = (count: number) =>
    sidesOf(run)
      .map((side) => `${SIDE_LABELS[side]} ${share(results.get(`${side}/${count}`))}`)
      .join(", ");
  const p = (side: Side, count: number) => results.get(`${side}/${count}`);
  for (const count of run.scale.chatCounts) {
    const shareTarget = count <= 4 ? 88 : 85;
    rows.push(
      row(
        `routing: cached share of later turns' prompt tokens, ${count} chats`,
        { label: SIDE_LABELS.on, value: share(p("on", count)), unit: "%" },
        { label: SIDE_LABELS.off, value: share(p("off", count)), unit: "%" },
        { of: "subject", op: ">=", value: shareTarget, text: `≥ ${shareTarget} %` },
        [
          method,
          `cached share (% of prompt tokens): ${shares(count)}`,
          `routing decisions, routing on (all turns, all rounds): ${JSON.stringify(p("on", count)?.decisions ?? {})}`,
        ],
      ),
      row(
        `routing: next-turn latency, ${count} chats, routing on vs one worker with the same slots`,
        latency(SIDE_LABELS.on, p("on", count)),
        latency(SIDE_LABELS.one, p("one", count)),
        { of: "ratio", op: "<=", value: 1.1, text: "p50 ≤ 1.1× baseline" },
        [
          method,
          `p95 is shown as p99 in the table's columns; routing off: ${JSON.stringify(latency("", p("off", count)))}`,
        ],
      ),
    );
    if (run.llamaServer)
      rows.push(
        row(
          `routing: next-turn latency, ${count} chats, routing on vs round-robin llama-servers`,
          latency(SIDE_LABELS.on, p("on", count)),
          latency(SIDE_LABELS.balanced, p("balanced", count)),
          count >= 16 ? { of: "ratio", op: "<=", value: 0.8, text: "p50 ≤ 0.8× baseline" } : null,
          [method],
        ),
      );
  }
  return rows;
}

/** One-turn jobs of distinct conversations sent at once, per minute, routing on against off, rounds alternating. */
async function throughputRow(run: Run): Promise<BenchRow> {
  const { scale } = run;
  const rates: Record<"on" | "off", number[]> = { on: [], off: [] };
  for (let round = 0; round < run.ctx.options.rounds; round++) {
    for (const side of round % 2 === 0 ? (["on", "off"] as const) : (["off", "on"] as const)) {
      const burst = Array.from({ length: scale.burstJobs }, (_, i) => ({
        messages: conversation(`t${round}${side}${i}`, 1, 60),
        maxTokens: scale.burstTokens,
      }));
      rates[side].push(await withSide(run, side, ({ send }) => jobsPerMinute(burst, send)));
    }
  }
  return row(
    "routing: one-turn jobs per minute, routing on vs off",
    medianFigure(SIDE_LABELS.on, rates.on, "jobs/min", 0),
    medianFigure(SIDE_LABELS.off, rates.off, "jobs/min", 0),
    { of: "ratio", op: ">=", value: 0.95, text: "≥ 0.95× baseline" },
    [
      `${scale.burstJobs} one-turn jobs of distinct conversations at once, ${scale.burstTokens} tokens each, ${run.ctx.options.rounds} rounds alternating`,
    ],
  );
}

export const routingRows: RowGroup = {
  name: "routing",
  run: async (ctx) => {
    const { options, log } = ctx;
    const scale = options.quick ? QUICK : FULL;
    const anchor = options.anchor === "llama-server" ? await ensureLlamaServer(log) : null;
    const llamaServer = anchor && "path" in anchor ? anchor.path : null;
    const larger = options.largerModel ? await writeLargerModel(options.model) : null;
    try {
      const run: Run = { ctx, model: larger?.path ?? options.model, scale, llamaServer };
      const rows = [...chatRows(run, await measureChats(run)), await throughputRow(run)];
      const modelNote = `model: ${larger ? `${LARGER_MODEL_LABEL}, made offline (replies run to max_tokens)` : basename(options.model)}; ${options.threads} threads in all per side`;
      for (const r of rows) r.notes.push(modelNote);
      return rows;
    } finally {
      await larger?.remove();
    }
  },
};
