import { submitBenchRequest } from "../load/load-specs.js";
import { nowMs } from "../metrics/clock.js";
import { percentile, round } from "../metrics/stats.js";
import { makeRow, p50Below, type Figure } from "../report/bench-row.js";
import { BASELINE_PREFIX, GATEWAY_PREFIX, type BenchStack } from "../stack/bench-stack.js";
import { httpJson } from "../stack/net.js";
import { NoopWorker } from "../stack/workers.js";
import type { RowGroup } from "./row-group.js";

/**
 * Row 3, queue overhead without generation cost. A no-op worker (real BullMQ Worker, real
 * StatusStore) replaces the engine with a fixed wait, and stamps two moments on a clock shared by
 * all processes of the machine (performance.timeOrigin + performance.now()):
 * - submit -> start: from the bench sending the POST to the processor starting, one job at a time.
 * - finish -> visible: from the processor's work being done (just before it writes `completed`
 *   with StatusStore.complete, as the real processor does) to the first poll response that shows
 *   `completed`. Two clients poll back to back from the moment the submit returns; the wait
 *   (HOLD_MS) makes sure they are already polling when the job finishes, so the figure is the
 *   write plus at most one poll round trip.
 * The baselines take the same paths through the minimal servers instead of the gateway.
 */
const HOLD_MS = 15;
const POLLERS = 2;
const WARMUP_SAMPLES = 3;

interface Timings {
  gatewayStart: number[];
  baselineStart: number[];
  gatewayVisible: number[];
  baselineVisible: number[];
}

/** When (nowMs) the first of `POLLERS` back-to-back pollers got a `completed` record from `url`. */
async function firstCompletedAt(url: string, headers: Record<string, string>, timeoutMs = 5000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let seenAt: number | undefined;
  const poll = async () => {
    while (seenAt === undefined) {
      if (Date.now() > deadline) throw new Error(`${url} did not show completed within ${timeoutMs} ms`);
      const res = await httpJson("GET", url, headers);
      if ((res.body as { status?: unknown }).status === "completed") seenAt ??= nowMs();
    }
  };
  await Promise.all(Array.from({ length: POLLERS }, poll));
  return seenAt ?? Number.NaN;
}

/** One job submitted at `submitUrl`: submit->start, then finish->visible as seen at `statusUrl(id)`. */
async function probeJob(
  worker: NoopWorker,
  submitUrl: string,
  auth: Record<string, string>,
  statusUrl: ((id: string) => string) | null,
) {
  const sentAt = nowMs();
  const id = await submitBenchRequest(submitUrl, auth);
  const start = (await worker.started(id)) - sentAt;
  if (!statusUrl) {
    await worker.finished(id);
    return { start, visible: Number.NaN };
  }
  const seenAt = await firstCompletedAt(statusUrl(id), auth);
  return { start, visible: seenAt - (await worker.finished(id)) };
}

async function sample(stack: BenchStack, worker: NoopWorker, into: Timings | null): Promise<void> {
  const auth = { authorization: `Bearer ${stack.apiKey}` };
  const gatewaySubmit = `${stack.gateway.url}/api/text/default`;
  const viaGateway = await probeJob(worker, gatewaySubmit, auth, (id) => `${stack.gateway.url}/api/v2/status/${id}`);
  const viaBaseline = await probeJob(worker, `${stack.minimalEnqueue.url}/enqueue`, {}, null);
  // The baseline read path needs a status record, so this job goes in through the gateway.
  const readBaseline = await probeJob(worker, gatewaySubmit, auth, (id) => `${stack.minimalStatus.url}/status/${id}`);
  if (!into) return;
  into.gatewayStart.push(viaGateway.start);
  into.gatewayVisible.push(viaGateway.visible);
  into.baselineStart.push(viaBaseline.start);
  into.baselineVisible.push(readBaseline.visible);
}

function latencyFigure(label: string, values: number[]): Figure {
  const p50 = round(percentile(values, 50), 3);
  return { label, value: p50, unit: "ms", p50Ms: p50, p99Ms: round(percentile(values, 99), 3), samples: values.length };
}

export const queueRows: RowGroup = {
  name: "queue",
  run: async ({ stack, options, log }) => {
    const worker = await NoopWorker.start(stack, {
      prefixes: [GATEWAY_PREFIX, BASELINE_PREFIX],
      holdMs: HOLD_MS,
      report: true,
    });
    const t: Timings = { gatewayStart: [], baselineStart: [], gatewayVisible: [], baselineVisible: [] };
    try {
      for (let i = 0; i < WARMUP_SAMPLES; i++) await sample(stack, worker, null);
      for (let i = 0; i < options.queueSamples; i++) await sample(stack, worker, t);
    } finally {
      await worker.stop();
      await stack.resetQueues();
    }
    log(`  ${options.queueSamples} probe jobs per figure`);
    const common = `${options.queueSamples} jobs one at a time, no generation (no-op worker holds ${HOLD_MS} ms, excluded)`;
    return [
      makeRow({
        group: "queue",
        name: "queue submit → worker start",
        subject: latencyFigure("POST through the full gateway, then BullMQ", t.gatewayStart),
        baseline: latencyFigure("POST to Express 5 + Queue.add, then BullMQ", t.baselineStart),
        target: p50Below(5),
        notes: [`${common}; from the client sending the POST to the processor starting`],
      }),
      makeRow({
        group: "queue",
        name: "queue worker finish → status completed",
        subject: latencyFigure(
          "StatusStore.complete, then polling the gateway's /api/v2/status/{id}",
          t.gatewayVisible,
        ),
        baseline: latencyFigure("StatusStore.complete, then polling Express 5 + one HGETALL", t.baselineVisible),
        target: p50Below(5),
        notes: [`${common}; ${POLLERS} clients polling back to back, so it includes up to one poll round trip`],
      }),
    ];
  },
};
