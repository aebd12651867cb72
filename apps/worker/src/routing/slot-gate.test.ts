import { describe, expect, it } from "@jest/globals";
import { SlotGate } from "./slot-gate.js";

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe("SlotGate", () => {
  it("when more jobs come than slots, then the rest wait and start in the order they came", async () => {
    const gate = new SlotGate(2);
    const started: number[] = [];
    const holds = [deferred(), deferred(), deferred(), deferred()];
    const runs = holds.map((hold, i) =>
      gate.run(async () => {
        started.push(i);
        await hold.promise;
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(gate.free).toBe(0);
    holds[1]!.resolve();
    await runs[1];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    holds[0]!.resolve();
    holds[2]!.resolve();
    holds[3]!.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect(gate.free).toBe(2);
  });

  it("when a job throws, then its slot is freed", async () => {
    const gate = new SlotGate(1);
    await expect(gate.run(() => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    await expect(gate.run(() => Promise.resolve("ok"))).resolves.toBe("ok");
    expect(gate.free).toBe(1);
  });

  it("when hand-over jobs come and go, then the count of those holding or waiting for a slot is told", async () => {
    const counts: number[] = [];
    const gate = new SlotGate(1, (n) => counts.push(n));
    const hold = deferred();
    const first = gate.run(() => hold.promise, { handover: true });
    const second = gate.run(() => Promise.resolve(), { handover: true });
    const shared = gate.run(() => Promise.resolve());
    hold.resolve();
    await Promise.all([first, second, shared]);
    expect(counts).toEqual([1, 2, 1, 0]);
  });

  it("when a job taken back from a busy worker comes while others wait, then it starts before them", async () => {
    const gate = new SlotGate(1);
    const started: string[] = [];
    const hold = deferred();
    const runs = [
      gate.run(() => hold.promise),
      gate.run(() => Promise.resolve(void started.push("hand-over")), { handover: true }),
      gate.run(() => Promise.resolve(void started.push("taken back")), { first: true }),
    ];
    hold.resolve();
    await Promise.all(runs);
    expect(started).toEqual(["taken back", "hand-over"]);
  });
});
