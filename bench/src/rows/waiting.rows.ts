import { sleep } from "../metrics/clock.js";
import { makeRow, type BenchRow, type Figure, type Target } from "../report/bench-row.js";
import { GATEWAY_PREFIX, type BenchStack } from "../stack/bench-stack.js";
import { httpJson } from "../stack/net.js";
import { NoopWorker } from "../stack/workers.js";
import type { RowGroup } from "./row-group.js";
import { submitToGateway } from "../load/load-specs.js";
import { streamFanOutRows } from "./stream-fanout.js";

/**
 * How many status requests a client makes per completed job when it waits with
 * `Prefer: wait=30` against polling every second, as the contract suggests. Every job is the same
 * size (the no-op worker holds each HOLD_MS, its own concurrency runs them side by side); one
 * client per job, all at once. The figure is status GETs per job, averaged over the jobs. Then
 * what the other way of not polling costs: a gateway's memory per open status stream (stream-fanout).
 */
const HOLD_MS = 3000;
const WAIT_SECONDS = 30;
const POLL_INTERVAL_MS = 1000;
/** No more than the no-op worker runs at once (8), so no job waits in the queue. */
const JOBS = { full: 8, quick: 3 };
/** Status streams held open at once by the fan-out row. */
const STREAMS = { full: 1000, quick: 50 };
/** With jobs shorter than the wait, a waiting client asks once. */
const ONE_PER_JOB: Target = { of: "subject", op: "<=", value: 1, text: "≤ 1 per job" };

type Mode = "prefer-wait" | "poll-1s";

/** Status GETs one client makes from its submit until it sees the job final. */
async function statusRequestsUntilFinal(stack: BenchStack, id: string, mode: Mode): Promise<number> {
  const headers: Record<string, string> = { authorization: `Bearer ${stack.apiKey}` };
  if (mode === "prefer-wait") headers.prefer = `wait=${WAIT_SECONDS}`;
  for (let requests = 1; ; requests++) {
    const res = await httpJson("GET", `${stack.gateway.url}/api/v2/status/${id}`, headers);
    if (res.status !== 200) throw new Error(`status of ${id} answered ${res.status}: ${JSON.stringify(res.body)}`);
    if ((res.body as { status?: unknown }).status !== "processing") return requests;
    if (mode === "poll-1s") await sleep(POLL_INTERVAL_MS);
  }
}

async function perJob(stack: BenchStack, jobs: number, mode: Mode, label: string): Promise<Figure> {
  const ids = await Promise.all(Array.from({ length: jobs }, () => submitToGateway(stack)));
  const counts = await Promise.all(ids.map((id) => statusRequestsUntilFinal(stack, id, mode)));
  const total = counts.reduce((sum, count) => sum + count, 0);
  return { label, value: total / jobs, unit: "count", runs: counts, samples: jobs };
}

export const waitingRows: RowGroup = {
  name: "waiting",
  run: async ({ stack, options, log }) => {
    const rows = [await requestsPerJobRow(stack, options.quick, log)];
    try {
      rows.push(...(await streamFanOutRows(stack, options.quick ? STREAMS.quick : STREAMS.full)));
    } finally {
      await stack.resetQueues();
    }
    return rows;
  },
};

async function requestsPerJobRow(stack: BenchStack, quick: boolean, log: (line: string) => void): Promise<BenchRow> {
  const worker = await NoopWorker.start(stack, { prefixes: [GATEWAY_PREFIX], holdMs: HOLD_MS, report: false });
  const jobs = quick ? JOBS.quick : JOBS.full;
  try {
    const waiting = await perJob(
      stack,
      jobs,
      "prefer-wait",
      `GET with Prefer: wait=${WAIT_SECONDS}, again until final`,
    );
    const polling = await perJob(stack, jobs, "poll-1s", `GET every ${POLL_INTERVAL_MS / 1000} s until final`);
    log(`  ${jobs} jobs of ${HOLD_MS} ms per side`);
    return makeRow({
      group: "waiting",
      name: "status requests per completed job: Prefer: wait vs polling every 1 s",
      subject: waiting,
      baseline: polling,
      target: ONE_PER_JOB,
      notes: [
        `${jobs} jobs of ${HOLD_MS} ms each (no-op worker), one client per job, all at once; figure: status GETs per job`,
      ],
    });
  } finally {
    await worker.stop();
    await stack.resetQueues();
  }
}
