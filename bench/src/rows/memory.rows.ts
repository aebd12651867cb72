import { runLoad } from "../load/autocannon.js";
import { baselineSubmit, gatewaySubmit } from "../load/load-specs.js";
import { round } from "../metrics/stats.js";
import { idleRssMb, peakRssWhile } from "../metrics/rss.js";
import { makeRow, type BenchRow, type Figure } from "../report/bench-row.js";
import { BASELINE_PREFIX } from "../stack/bench-stack.js";
import { NoopWorker, startRealWorker } from "../stack/workers.js";
import type { BenchContext, RowGroup } from "./row-group.js";

interface Readings {
  idle: { gateway: number; minimal: number; worker: number; noop: number };
  load: { gateway: number; minimal: number; worker: number; noop: number };
}

const mb = (label: string, value: number): Figure => ({ label, value: round(value, 1), unit: "MB" });

/**
 * Idle: fresh processes (this group runs first), median of a few readings. Under load: the peak
 * while a submit load runs, with a worker consuming as it would in service: the real worker (model
 * loaded, generating) behind the gateway, the no-op worker behind the minimal server.
 */
async function measure({ stack, options }: BenchContext): Promise<Readings> {
  const gatewayIdle = await idleRssMb(stack.gateway.child.pid);
  const minimalIdle = await idleRssMb(stack.minimalEnqueue.child.pid);
  const worker = await startRealWorker(stack, options.model);
  const noop = await NoopWorker.start(stack, { prefixes: [BASELINE_PREFIX], holdMs: 0, report: false });
  try {
    const workerIdle = await idleRssMb(worker.pid);
    const noopIdle = await idleRssMb(noop.child.pid);
    const settings = { connections: options.connections, durationS: options.durationS };
    const real = await peakRssWhile(
      { gateway: stack.gateway.child.pid, worker: worker.pid },
      runLoad(gatewaySubmit(stack), settings),
    );
    const minimal = await peakRssWhile(
      { minimal: stack.minimalEnqueue.child.pid, noop: noop.child.pid },
      runLoad(baselineSubmit(stack), settings),
    );
    return {
      idle: { gateway: gatewayIdle, minimal: minimalIdle, worker: workerIdle, noop: noopIdle },
      load: {
        gateway: real.peakMb.gateway ?? NaN,
        worker: real.peakMb.worker ?? NaN,
        minimal: minimal.peakMb.minimal ?? NaN,
        noop: minimal.peakMb.noop ?? NaN,
      },
    };
  } finally {
    await Promise.all([worker.stop(), noop.stop()]);
    await stack.resetQueues();
  }
}

function memoryRow(name: string, subject: Figure, baseline: Figure, note: string): BenchRow {
  return makeRow({ group: "memory", name, subject, baseline, target: null, notes: [note] });
}

/** Row 4: resident memory (VmRSS) of a gateway and a worker, idle and under the submit load. */
export const memoryRows: RowGroup = {
  name: "memory",
  run: async (ctx) => {
    const r = await measure(ctx);
    const load = `peak while ${ctx.options.connections} connections submit for ${ctx.options.durationS} s`;
    return [
      memoryRow(
        "memory gateway, idle",
        mb("gateway", r.idle.gateway),
        mb("Express 5 + Queue.add server", r.idle.minimal),
        "fresh process, median of 5 readings",
      ),
      memoryRow(
        "memory gateway, submit load",
        mb("gateway", r.load.gateway),
        mb("Express 5 + Queue.add server", r.load.minimal),
        load,
      ),
      memoryRow(
        "memory worker, idle",
        mb("worker (model loaded)", r.idle.worker),
        mb("no-op BullMQ worker", r.idle.noop),
        `model ${ctx.options.model.split("/").pop() ?? ""}`,
      ),
      memoryRow(
        "memory worker, submit load",
        mb("worker (generating)", r.load.worker),
        mb("no-op BullMQ worker", r.load.noop),
        `${load}; each worker consumes the jobs`,
      ),
    ];
  },
};
