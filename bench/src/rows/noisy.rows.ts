import type { Queue } from "bullmq";
import { submitBenchRequest } from "../load/load-specs.js";
import { nowMs } from "../metrics/clock.js";
import { makeRow, type Target } from "../report/bench-row.js";
import { BASELINE_PREFIX, createBenchKey, GATEWAY_PREFIX, type BenchStack } from "../stack/bench-stack.js";
import { NoopWorker, untilTextQueue } from "../stack/workers.js";
import {
  quietWait,
  quietWaitFigure,
  quietWaitNote,
  type JobStamps,
  type NoisyRound,
  type QuietWait,
} from "./quiet-wait.js";
import type { RowGroup } from "./row-group.js";
import { workShareRows } from "./noisy-work.js";

/**
 * The noisy neighbour: one key floods the queue, then another key submits one request;
 * the figure is the quiet key's wait (its POST to its job starting, as the no-op worker stamps it)
 * in job-times. Subject: the gateway, where each request's turn across keys is its job's priority
 * (fair-turns.ts). Baseline: the minimal enqueue server's plain `Queue.add`, arrival order, as the
 * gateway queued before fair turns. Both sides run on the same no-op worker (SLOTS jobs at once,
 * each holding HOLD_MS), one round at a time, alternating; every round waits until its queue is
 * empty, so the next one starts alike. The rows of noisy-work.ts follow on the same worker: the work
 * each key gets when both flood, long requests against short ones and alike.
 */
const HOLD_MS = 40;
const SLOTS = 2;
/** Under the deployment's default cap of requests in flight per key (MAX_IN_FLIGHT_PER_KEY, 100). */
const FLOOD = 60;
/** Far above a round's time (FLOOD jobs over SLOTS slots: 1.2 s), for a loaded machine. */
const ROUND_TIMEOUT_MS = 30_000;
const WITHIN_A_FEW_JOBS: Target = { of: "subject", op: "<=", value: 3, text: "≤ 3 job-times" };

interface Side {
  name: string;
  prefix: string;
  submitUrl: string;
  floodHeaders: Record<string, string>;
  quietHeaders: Record<string, string>;
}

const isEmpty = async (queue: Queue) =>
  (await queue.getJobCountByTypes("waiting", "prioritized", "active", "delayed")) === 0;

async function stampsOf(worker: NoopWorker, id: string): Promise<JobStamps> {
  const startedAt = await worker.started(id, ROUND_TIMEOUT_MS);
  return { startedAt, finishedAt: await worker.finished(id, ROUND_TIMEOUT_MS) };
}

/** The flood (all at once), the quiet request right after it, then every job's stamps and an empty queue. */
async function runRound(stack: BenchStack, worker: NoopWorker, side: Side): Promise<NoisyRound> {
  const floodIds = await Promise.all(
    Array.from({ length: FLOOD }, () => submitBenchRequest(side.submitUrl, side.floodHeaders)),
  );
  const quietSentAt = nowMs();
  const quietId = await submitBenchRequest(side.submitUrl, side.quietHeaders);
  const [quiet, ...flood] = await Promise.all([quietId, ...floodIds].map((id) => stampsOf(worker, id)));
  await untilTextQueue(stack, side.prefix, "jobs still queued or running", isEmpty, ROUND_TIMEOUT_MS);
  return { flood, quietSentAt, quiet: quiet as JobStamps };
}

async function sides(stack: BenchStack): Promise<[Side, Side]> {
  const bearer = async (name: string) => ({ authorization: `Bearer ${await createBenchKey(stack.redis, name)}` });
  const fair = { name: "fair turns", prefix: GATEWAY_PREFIX, submitUrl: `${stack.gateway.url}/api/text/default` };
  const arrival = { name: "arrival order", prefix: BASELINE_PREFIX, submitUrl: `${stack.minimalEnqueue.url}/enqueue` };
  return [
    { ...fair, floodHeaders: await bearer("noisy-flood"), quietHeaders: await bearer("noisy-quiet") },
    { ...arrival, floodHeaders: {}, quietHeaders: {} },
  ];
}

export const noisyRows: RowGroup = {
  name: "noisy",
  run: async ({ stack, options, log }) => {
    const [fair, arrival] = await sides(stack);
    const waits = new Map<Side, QuietWait[]>([
      [fair, []],
      [arrival, []],
    ]);
    const worker = await NoopWorker.start(stack, {
      prefixes: [GATEWAY_PREFIX, BASELINE_PREFIX],
      holdMs: HOLD_MS,
      report: true,
      concurrency: SLOTS,
    });
    let byWork;
    try {
      if (!options.quick) for (const side of [fair, arrival]) await runRound(stack, worker, side);
      for (let i = 0; i < options.rounds; i++) {
        for (const side of i % 2 === 0 ? [fair, arrival] : [arrival, fair])
          waits.get(side)?.push(quietWait(await runRound(stack, worker, side), SLOTS));
      }
      byWork = await workShareRows(stack, worker, [fair, arrival], options.rounds);
    } finally {
      await worker.stop();
      await stack.resetQueues();
    }
    log(`  ${options.rounds} round(s) per side of ${FLOOD} + 1 requests`);
    const [fairWaits, arrivalWaits] = [waits.get(fair) ?? [], waits.get(arrival) ?? []];
    return [
      makeRow({
        group: "noisy",
        name: `noisy neighbour: one request behind another key's ${FLOOD}, wait in job-times`,
        subject: quietWaitFigure(
          "fair turns: the gateway, each request's turn across keys is its job's priority",
          fairWaits,
        ),
        baseline: quietWaitFigure(
          "arrival order: Express 5 + Queue.add without priority (first come, first served)",
          arrivalWaits,
        ),
        target: WITHIN_A_FEW_JOBS,
        notes: [
          `one key submits ${FLOOD} requests at once, then another key one; no-op worker with ${SLOTS} slots holding each job ${HOLD_MS} ms; ` +
            `wait = the quiet POST to its job starting, over one slot's time per job in that round; median of ${options.rounds} alternating round(s)`,
          quietWaitNote(fair.name, fairWaits),
          quietWaitNote(arrival.name, arrivalWaits),
        ],
      }),
      ...byWork,
    ];
  },
};
