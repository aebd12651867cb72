import { type SubmitResponse } from "@chorus/contracts";
import { nowMs, sleep } from "../metrics/clock.js";
import { percentile, round } from "../metrics/stats.js";
import { countTakeOverCommands } from "../metrics/take-over-commands.js";
import { makeRow, type Figure } from "../report/bench-row.js";
import { whileAlive, type BenchChild } from "../stack/child-processes.js";
import { freePort, httpJson, waitForHttp } from "../stack/net.js";
import { jobMarker, startSlowChatUpstream, type SlowChatUpstream } from "../stack/slow-chat-upstream.js";
import { startRealWorker } from "../stack/workers.js";
import { apiBody, conversation } from "./inference-jobs.js";
import type { BenchContext, RowGroup } from "./row-group.js";

/**
 * A killed worker's jobs back on another worker. A worker whose slots hold jobs (long
 * replies from a slow upstream, so the engine costs no CPU and the kill always finds them running)
 * is killed with SIGKILL while an idle worker stands by; each job's time from the kill to its
 * engine call on the other worker. The standby then holds the next round's jobs, and a fresh worker
 * stands by. And what the lock renewals and stalled checks cost Redis.
 */
const TOKEN_MS = 50;
const SLOTS = 2;
/** 2048 tokens at 20 a second: a job still runs when its worker is killed, whatever the round's delay. */
const LONG_REPLY = 2048;
/** The former default lock, measured beside today's with this release's renewal and check (a quarter of it). */
const FORMER_LOCK_MS = "30000";

interface Scale {
  kills: number;
  baselineKills: number;
  /** MONITOR's window: at least one stalled check of the former lock (every 7.5 s). */
  windowMs: number;
}
const FULL: Scale = { kills: 6, baselineKills: 3, windowMs: 30_000 };
const QUICK: Scale = { kills: 1, baselineKills: 1, windowMs: 8_000 };

interface Run {
  ctx: BenchContext;
  upstream: SlowChatUpstream;
  /** JOB_LOCK_MS for the side measured; absent: the default. */
  lock: Record<string, string>;
}

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`take-over: ${what} within ${timeoutMs} ms`);
    await sleep(10);
  }
}

/** A real worker on the slow upstream, text only; resolves once its /readyz answers (its BullMQ workers run). */
async function startWorker(run: Run): Promise<BenchChild> {
  const port = await freePort();
  const child = await startRealWorker(run.ctx.stack, "slow", {
    LLM_ENGINE: "openai-compatible",
    LLM_BASE_URL: run.upstream.url,
    TTS_ENGINE: "none",
    WORKER_CONCURRENCY: String(SLOTS),
    WORKER_HTTP_PORT: String(port),
    ...run.lock,
  });
  if (!(await whileAlive(child, waitForHttp(`http://127.0.0.1:${port}/readyz`, 60_000))))
    throw new Error(`take-over: a worker was not ready within 60 s:\n${child.output()}`);
  return child;
}

interface HeldJobs {
  ids: string[];
  markers: string[];
}

/** Fills the slots of the one idle worker with long jobs; resolves once each one's engine call has begun. */
async function holdSlots(run: Run, tag: string): Promise<HeldJobs> {
  const { stack } = run.ctx;
  const held: HeldJobs = { ids: [], markers: [] };
  for (let slot = 0; slot < SLOTS; slot++) {
    const marker = jobMarker(`${tag}s${slot}`);
    const messages = conversation(marker, 1, 60);
    const headers = { authorization: `Bearer ${stack.apiKey}` };
    const body = apiBody({ messages, maxTokens: LONG_REPLY });
    const answer = await httpJson("POST", `${stack.gateway.url}/api/text/default`, headers, body);
    held.ids.push((answer.body as SubmitResponse).id);
    held.markers.push(marker);
  }
  await until(
    "the held jobs' engine calls",
    () => held.markers.every((m) => run.upstream.calls(m).length === 1),
    60_000,
  );
  return held;
}

/** Cancels the jobs; resolves once no engine call is open any more. */
async function release(run: Run, held: HeldJobs): Promise<void> {
  const { stack } = run.ctx;
  for (const id of held.ids)
    await httpJson("DELETE", `${stack.gateway.url}/api/v2/status/${id}`, { authorization: `Bearer ${stack.apiKey}` });
  await until("the released jobs' engine calls to end", () => run.upstream.open() === 0, 60_000);
}

/** One kill: `holder` takes fresh jobs, a standby starts, the holder dies; ms from the kill to each job's next call. */
async function killRound(run: Run, holder: BenchChild, tag: string): Promise<{ ms: number[]; next: BenchChild }> {
  const held = await holdSlots(run, tag);
  const standby = await startWorker(run);
  // The kill falls anywhere between two lock renewals, as a real crash would.
  await sleep(Math.random() * 2500);
  const killedAt = nowMs();
  await holder.kill("SIGKILL");
  await until(
    "the killed worker's jobs running again",
    () => held.markers.every((m) => run.upstream.calls(m).length >= 2),
    120_000,
  );
  const ms = held.markers.map((m) => run.upstream.calls(m)[1]! - killedAt);
  await release(run, held);
  return { ms, next: standby };
}

/** `kills` rounds on one side (its lock setting); the restart times of every killed job. */
async function measureKills(run: Run, kills: number, side: string): Promise<number[]> {
  const times: number[] = [];
  let holder = await startWorker(run);
  try {
    for (let round = 0; round < kills; round++) {
      run.ctx.log(`  take-over: ${side}, kill ${round + 1} of ${kills}`);
      const { ms, next } = await killRound(run, holder, `${side}r${round}`);
      times.push(...ms);
      holder = next;
    }
  } finally {
    await holder.stop();
    await run.ctx.stack.resetQueues();
  }
  return times;
}

/** Take-over commands per second: on one idle worker, and added per running job once its slots are full. */
async function commandCost(run: Run, windowMs: number): Promise<{ idle: number; perJob: number }> {
  const worker = await startWorker(run);
  try {
    const perSecond = (seen: { calls: number; inner: number }) => ((seen.calls + seen.inner) * 1000) / windowMs;
    const idle = perSecond(await countTakeOverCommands(run.ctx.stack.redisUrl, windowMs));
    const held = await holdSlots(run, `cost${run.lock.JOB_LOCK_MS ?? "default"}`);
    const busy = perSecond(await countTakeOverCommands(run.ctx.stack.redisUrl, windowMs));
    await release(run, held);
    return { idle: round(idle, 2), perJob: round((busy - idle) / SLOTS, 2) };
  } finally {
    await worker.stop();
    await run.ctx.stack.resetQueues();
  }
}

function restartFigure(label: string, ms: number[]): Figure {
  return {
    label,
    value: round(percentile(ms, 95), 0),
    unit: "ms",
    p50Ms: round(percentile(ms, 50), 0),
    p99Ms: round(percentile(ms, 99), 0),
    runs: ms.map((v) => round(v, 0)),
    samples: ms.length,
  };
}

const DEFAULT_LABEL = "JOB_LOCK_MS default (10 s; renewal and stalled check every 2.5 s)";
const FORMER_LABEL = `JOB_LOCK_MS=${FORMER_LOCK_MS} (the former default; renewal and check every 7.5 s)`;

export const takeOverRows: RowGroup = {
  name: "takeover",
  run: async (ctx) => {
    const scale = ctx.options.quick ? QUICK : FULL;
    const upstream = await startSlowChatUpstream(TOKEN_MS);
    try {
      const today: Run = { ctx, upstream, lock: {} };
      const former: Run = { ctx, upstream, lock: { JOB_LOCK_MS: FORMER_LOCK_MS } };
      const restarts = await measureKills(today, scale.kills, "default");
      const formerRestarts = await measureKills(former, scale.baselineKills, "former");
      const cost = await commandCost(today, scale.windowMs);
      const formerCost = await commandCost(former, scale.windowMs);
      const method = `a worker with ${SLOTS} slots holding ${SLOTS} jobs (a slow upstream: ${1000 / TOKEN_MS} tokens/s, replies of ${LONG_REPLY}) is killed with SIGKILL 0-2.5 s after an idle worker is ready; time from the kill to each job's engine call on the other worker; the value is the p95, runs are every job`;
      const calls = `engine calls of one job open at once, at most: ${upstream.mostAtOnce()} (1: no job ran on two workers at a time)`;
      return [
        makeRow({
          group: "takeover",
          name: "take-over: kill -9 of a worker holding jobs → each job running again on another worker, p95",
          subject: restartFigure(DEFAULT_LABEL, restarts),
          baseline: restartFigure(FORMER_LABEL, formerRestarts),
          target: { of: "subject", op: "<=", value: 15_000, text: "p95 ≤ 15 s" },
          notes: [method, calls, "bound from the settings: JOB_LOCK_MS + JOB_LOCK_MS/4 (12.5 s by default)"],
        }),
        makeRow({
          group: "takeover",
          name: "take-over: Redis commands per running job per second (lock renewals and stalled checks)",
          subject: { label: DEFAULT_LABEL, value: cost.perJob, unit: "count" },
          baseline: { label: FORMER_LABEL, value: formerCost.perJob, unit: "count" },
          target: null,
          notes: [
            `MONITOR over ${scale.windowMs / 1000} s on one worker, idle then with ${SLOTS} jobs running: script calls and the commands inside them; per running job = (running - idle) / ${SLOTS}`,
            `an idle worker's stalled checks (text and hand-over queues): ${cost.idle} commands/s (former lock: ${formerCost.idle})`,
          ],
        }),
      ];
    } finally {
      await upstream.stop();
    }
  },
};
