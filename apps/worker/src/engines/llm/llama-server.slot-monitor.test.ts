import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { SlotMonitor } from "./llama-server.slot-monitor.js";

const INTERVAL_MS = 400;

/** A stand-in for llama-server's GET /slots: slot 0 busy with seed 7, one more token decoded at every read. */
async function slotsServer(): Promise<{ server: Server; url: string; reads: () => number }> {
  let reads = 0;
  const server = createServer((_request, response) => {
    reads += 1;
    const slot = { id: 0, is_processing: true, params: { seed: 7 }, next_token: [{ n_decoded: reads }] };
    response.setHeader("content-type", "application/json").end(JSON.stringify([slot]));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/slots`, reads: () => reads };
}

describe("SlotMonitor", () => {
  let stub: Awaited<ReturnType<typeof slotsServer>>;
  beforeEach(async () => (stub = await slotsServer()));
  afterEach(() => new Promise((resolve) => stub.server.close(resolve)));

  it("when short jobs follow each other on a slot, then /slots is never read", async () => {
    const monitor = new SlotMonitor(() => stub.url, INTERVAL_MS);
    // Two slots, each job an eighth of the interval, the next starting before the last ends: never no watcher.
    let unwatchOther = monitor.watch(1, 1, () => undefined);
    for (let job = 0; job < 16; job += 1) {
      const unwatch = monitor.watch(0, 7, () => undefined);
      await sleep(INTERVAL_MS / 8);
      const next = monitor.watch(1, 1, () => undefined);
      unwatchOther();
      unwatchOther = next;
      unwatch();
    }
    unwatchOther();
    expect(stub.reads()).toBe(0);
  });

  it("when a job lasts several intervals, then it is read about once an interval and told its tokens", async () => {
    const monitor = new SlotMonitor(() => stub.url, INTERVAL_MS);
    const told: number[] = [];
    const unwatch = monitor.watch(0, 7, (tokens) => told.push(tokens));
    await sleep(INTERVAL_MS * 3.5);
    unwatch();
    expect(stub.reads()).toBeGreaterThanOrEqual(2);
    expect(stub.reads()).toBeLessThanOrEqual(3);
    // A read still in flight when the job ended is not told: every read told, in order, and at least two.
    expect(told.length).toBeGreaterThanOrEqual(2);
    expect(told).toEqual(Array.from({ length: told.length }, (_, i) => i + 1));
  });
});
