import { request, type ClientRequest } from "node:http";
import { submitToGateway } from "../load/load-specs.js";
import { sleep } from "../metrics/clock.js";
import { round } from "../metrics/stats.js";
import { idleRssMb } from "../metrics/rss.js";
import { makeRow, type BenchRow, type Figure } from "../report/bench-row.js";
import type { BenchStack } from "../stack/bench-stack.js";

/**
 * What open status streams (SSE) cost a gateway. Requests are submitted with no worker
 * running, so every record stays queued: the costliest kind of stream, which the gateway re-reads
 * once a second for its queue position. `streams` clients open a stream each (its own connection)
 * and hold it once its first snapshot came; the gateway's resident memory is read before and while
 * they are held. The figure per stream is the difference over their number.
 */
const SETTLE_MS = 2000;

/** Opens a status stream on its own connection; resolves once its first snapshot arrived. */
function openStream(stack: BenchStack, id: string): Promise<ClientRequest> {
  return new Promise((resolve, reject) => {
    const headers = { authorization: `Bearer ${stack.apiKey}`, accept: "text/event-stream" };
    const req = request(`${stack.gateway.url}/api/v2/status/${id}`, { headers, agent: false }, (res) => {
      if (res.statusCode !== 200 || !String(res.headers["content-type"]).startsWith("text/event-stream")) {
        reject(new Error(`stream of ${id} answered ${res.statusCode} ${String(res.headers["content-type"])}`));
        return;
      }
      res.setEncoding("utf8");
      res.once("data", (chunk: string) =>
        chunk.includes("event: status")
          ? resolve(req)
          : reject(new Error(`stream of ${id} began with ${chunk.slice(0, 80)}`)),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

export async function streamFanOutRows(stack: BenchStack, streams: number): Promise<BenchRow[]> {
  const ids: string[] = [];
  for (let i = 0; i < streams; i++) ids.push(await submitToGateway(stack));
  const pid = stack.gateway.child.pid;
  await sleep(SETTLE_MS); // the submits' garbage collected before the baseline is read
  const before = await idleRssMb(pid);
  const open: ClientRequest[] = [];
  try {
    for (const id of ids) open.push(await openStream(stack, id));
    await sleep(SETTLE_MS);
    const held = await idleRssMb(pid);
    const perStreamKb = ((held - before) * 1024) / streams;
    const subject: Figure = {
      label: `the gateway holding ${streams} open streams of queued requests`,
      value: round(held, 1),
      unit: "MB",
    };
    const baseline: Figure = { label: "the same gateway before they opened", value: round(before, 1), unit: "MB" };
    const method = `${streams} status streams (Accept: text/event-stream), one connection each, opened one after another and held ${SETTLE_MS / 1000} s after the last first snapshot; every record queued (no worker), so each is re-read once a second; RSS moves by a few MB with garbage collection, so only a large number of streams gives a figure per stream`;
    return [
      makeRow({
        group: "waiting",
        name: `memory gateway, ${streams} open status streams`,
        subject,
        baseline,
        target: null,
        notes: [method, `${round(perStreamKb, 1)} kB per open stream`],
      }),
    ];
  } finally {
    for (const req of open) req.destroy();
  }
}
