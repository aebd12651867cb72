import { STATUS_STEP_LABELS, STATUS_STEPS } from "../baselines/status-steps.js";
import { compareSeveral, comparePlan } from "../load/compare-loads.js";
import { baselineStatus, gatewayStatus } from "../load/load-specs.js";
import { startStatusStepServers } from "../stack/status-step-servers.js";
import type { RowGroup } from "./row-group.js";
import { submitOne } from "./status.rows.js";
import { throughputRow } from "./throughput-row.js";

/**
 * Where a status poll's cost goes: the gateway's own parts assembled step by step in separate
 * processes (see baselines/status-steps.ts), every step against the same minimal HGETALL handler,
 * all loads interleaved round by round. No target: these rows explain the status row's ratio.
 */
export const statusStepRows: RowGroup = {
  name: "status-steps",
  run: async ({ stack, options, log }) => {
    const id = await submitOne(stack);
    const servers = await startStatusStepServers(stack);
    try {
      const subjects = servers.map((server) => gatewayStatus(stack, id, { url: server.url, pid: server.child.pid }));
      const { baseline, subjects: series } = await compareSeveral(
        subjects,
        baselineStatus(stack, id),
        comparePlan(options, log),
      );
      return STATUS_STEPS.map((step, i) => {
        const subject = series[i];
        if (!subject) throw new Error(`no load series for status step ${step}`);
        return throughputRow(
          {
            group: "status-steps",
            name: `status step ${i + 1}: ${step}`,
            subjectLabel: STATUS_STEP_LABELS[step],
            baselineLabel: "Express 5 + one HGETALL of the same record",
            connections: options.connections,
          },
          { subject, baseline },
        );
      });
    } finally {
      await Promise.all(servers.map((server) => server.child.stop(5000)));
    }
  },
};
