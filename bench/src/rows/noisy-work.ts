import { QUEUES, type GenerationRequest } from "@chorus/contracts";
import { redisKeys } from "@chorus/platform/redis";
import { estimatedTurnCost } from "@chorus/platform/scheduler";
import { Queue } from "bullmq";
import { BENCH_REQUEST } from "../load/load-specs.js";
import { makeRow, type BenchRow, type Target } from "../report/bench-row.js";
import type { BenchStack } from "../stack/bench-stack.js";
import { httpJson } from "../stack/net.js";
import { untilTextQueue, type NoopWorker } from "../stack/workers.js";
import { floodWorkShare, workShareFigure, type StartedJob } from "./work-share.js";

/**
 * The noisy neighbour by work: one key floods the queue, then another key sends its own flood; the
 * figure is the first key's share of the work (in turns, as admission costs it) started while both
 * keys had requests waiting. Two cases: the first key's requests long (full context, max_tokens 2048)
 * and the other's short, and both alike. Fair by cost is 50 % in both; arrival order gives the first
 * key 100 %, as turns counting requests would nearly (one long start for each short one).
 */
const LONG = {
  messages: [{ role: "You", content: "Tell me a long story about a brave cat. ".repeat(50), index: 0 }],
  samplingParams: { max_tokens: 2048 },
};
const CASES = [
  { name: "long vs short", flood: { count: 20, body: LONG }, other: { count: 40, body: BENCH_REQUEST } },
  { name: "alike", flood: { count: 30, body: BENCH_REQUEST }, other: { count: 30, body: BENCH_REQUEST } },
] as const;
type WorkCase = (typeof CASES)[number];

const FAIR_BY_COST: Target = { of: "subject", op: "<=", value: 60, text: "≤ 60 % (50 % is fair by cost)" };
const ROUND_TIMEOUT_MS = 30_000;

/** One side of the row (noisy.rows.ts's sides): where it submits and as which keys. */
export interface WorkSide {
  name: string;
  prefix: string;
  submitUrl: string;
  floodHeaders: Record<string, string>;
  quietHeaders: Record<string, string>;
}

const costOf = (body: object) => estimatedTurnCost(body as GenerationRequest);

async function submit(url: string, headers: Record<string, string>, body: object): Promise<string> {
  const res = await httpJson("POST", url, headers, body);
  const id = (res.body as { id?: unknown }).id;
  if (res.status !== 200 || typeof id !== "string") throw new Error(`submit to ${url} failed: ${res.status}`);
  return id;
}

const isEmpty = async (queue: Queue) =>
  (await queue.getJobCountByTypes("waiting", "prioritized", "active", "delayed")) === 0;

/**
 * The first key's flood (all at once), then the other's, into a paused queue, so that both wait from
 * the first start on; then every job's start and an empty queue.
 */
async function runRound(stack: BenchStack, worker: NoopWorker, side: WorkSide, c: WorkCase): Promise<number> {
  const flood = async (n: number, headers: Record<string, string>, body: object) =>
    Promise.all(Array.from({ length: n }, () => submit(side.submitUrl, headers, body)));
  const prefix = redisKeys(side.prefix).bullPrefix(QUEUES.text);
  const queue = new Queue(QUEUES.text, { connection: stack.redis, prefix });
  const [floodIds, otherIds] = await (async () => {
    await queue.pause();
    try {
      return [
        await flood(c.flood.count, side.floodHeaders, c.flood.body),
        await flood(c.other.count, side.quietHeaders, c.other.body),
      ];
    } finally {
      await queue.resume();
      await queue.close();
    }
  })();
  const startsOf = (ids: string[], isFlood: boolean, cost: number) =>
    ids.map(async (id): Promise<StartedJob> => ({
      flood: isFlood,
      cost,
      startedAt: await worker.started(id, ROUND_TIMEOUT_MS),
    }));
  const jobs = await Promise.all([
    ...startsOf(floodIds, true, costOf(c.flood.body)),
    ...startsOf(otherIds, false, costOf(c.other.body)),
  ]);
  await untilTextQueue(stack, side.prefix, "jobs still queued or running", isEmpty, ROUND_TIMEOUT_MS);
  return floodWorkShare(jobs);
}

/** Both cases, each side `rounds` times alternating; one row a case. */
export async function workShareRows(
  stack: BenchStack,
  worker: NoopWorker,
  [fair, arrival]: [WorkSide, WorkSide],
  rounds: number,
): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const c of CASES) {
    const shares = new Map<WorkSide, number[]>([
      [fair, []],
      [arrival, []],
    ]);
    for (let i = 0; i < rounds; i++) {
      for (const side of i % 2 === 0 ? [fair, arrival] : [arrival, fair])
        shares.get(side)?.push(await runRound(stack, worker, side, c));
    }
    const [costFlood, costOther] = [costOf(c.flood.body), costOf(c.other.body)];
    rows.push(
      makeRow({
        group: "noisy",
        name: `noisy neighbour by work (${c.name}): the flooding key's share of the work while both wait`,
        subject: workShareFigure("fair turns weighted by cost: the gateway", shares.get(fair) ?? []),
        baseline: workShareFigure("arrival order: Express 5 + Queue.add without priority", shares.get(arrival) ?? []),
        target: FAIR_BY_COST,
        notes: [
          `one key submits ${c.flood.count} requests of ${costFlood} turn(s) at once, then another ${c.other.count} of ` +
            `${costOther}; work = turns as admission costs them (64 tokens each); median of ${rounds} alternating round(s)`,
          `turns counting requests (one start each in turn) would give the flooding key ` +
            `${Math.round((100 * costFlood) / (costFlood + costOther))} % (worked out, not measured)`,
        ],
      }),
    );
  }
  return rows;
}
