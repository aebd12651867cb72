import { jest } from "@jest/globals";
import type { BatchStore } from "@chorus/platform/batches";
import { testLogger } from "../../../../test-support/logger.js";
import { BatchFeeder, type BatchFeederDeps } from "./batch-feeder.js";

/** A feeder whose batch store locks as told and fails every batch read: only the lock steps run. */
function feederOverFailingReads(lockWon: boolean) {
  const calls: string[] = [];
  const batches: Pick<BatchStore, "lock" | "get" | "unlock"> = {
    lock: (id) => (calls.push(`lock ${id}`), Promise.resolve(lockWon)),
    get: () => Promise.reject(new Error("connection lost")),
    unlock: (id) => (calls.push(`unlock ${id}`), Promise.resolve()),
  };
  const logger = testLogger("batch-feeder-test");
  const warn = jest.spyOn(logger, "warn");
  // The step under test reaches only the store and the logger.
  const deps = { batches, logger, window: 4 } as unknown as BatchFeederDeps;
  return { feeder: new BatchFeeder(deps), calls, warn };
}

describe("BatchFeeder's step", () => {
  it("when the batch read fails after the lock was won, then the lock is let go at once", async () => {
    const { feeder, calls, warn } = feederOverFailingReads(true);
    await feeder.step("b1");
    expect(calls).toEqual(["lock b1", "unlock b1"]);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it("when another feeder holds the lock, then the failed read is nobody's error and nothing is let go", async () => {
    const { feeder, calls, warn } = feederOverFailingReads(false);
    await feeder.step("b1");
    expect(calls).toEqual(["lock b1"]);
    expect(warn).not.toHaveBeenCalled();
  });
});
