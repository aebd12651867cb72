import { describe, expect, it } from "@jest/globals";
import { RunGate } from "./run-gate.js";

const never = new AbortController().signal;
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe("RunGate", () => {
  it("when runs are shared, then they run together", async () => {
    const gate = new RunGate();
    await gate.enter(false, never);
    await expect(gate.enter(false, never)).resolves.toEqual(expect.any(Function));
  });

  it("when an exclusive run waits for shared ones, then it starts only once they have all left", async () => {
    const gate = new RunGate();
    const [a, b] = [await gate.enter(false, never), await gate.enter(false, never)];
    let started = false;
    const exclusive = gate.enter(true, never).then((leave) => ((started = true), leave));
    a();
    await settled();
    expect(started).toBe(false);
    b();
    await exclusive;
    expect(started).toBe(true);
  });

  it("when an exclusive run runs or waits, then later shared runs wait behind it (first come, first served)", async () => {
    const gate = new RunGate();
    const first = await gate.enter(false, never);
    const order: string[] = [];
    const exclusive = gate.enter(true, never).then((leave) => (order.push("exclusive"), leave));
    const later = gate.enter(false, never).then((leave) => (order.push("later"), leave));
    first();
    (await exclusive)();
    await later;
    expect(order).toEqual(["exclusive", "later"]);
  });

  it("when a waiting run is aborted, then it rejects with the reason and those behind it go on", async () => {
    const gate = new RunGate();
    const running = await gate.enter(false, never);
    const abort = new AbortController();
    const waiting = gate.enter(true, abort.signal);
    const behind = gate.enter(false, never);
    abort.abort(new Error("cancelled"));
    await expect(waiting).rejects.toThrow("cancelled");
    await expect(behind).resolves.toEqual(expect.any(Function));
    running();
  });
});
