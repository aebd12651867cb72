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

const LINE = JSON.stringify({
  custom_id: "r0",
  method: "POST",
  url: "/v1/chat/completions",
  body: { model: "default", messages: [{ role: "user", content: "Hi" }], max_tokens: 8 },
});

/**
 * A sweep over one fed line whose record is `processing` and older than the requeue wait: `record`
 * says whether it started, `waiting` whether it is still in the waiting set, `job` whether BullMQ holds
 * its job. What the feeder asks TextJobs to queue again is recorded.
 */
async function sweepOverWaitingLine({ started = false, waiting = true, job = false }) {
  const batch = {
    id: "b1",
    keyId: "k1",
    endpoint: "/v1/chat/completions",
    status: "in_progress",
    total: 2,
    completed: 0,
    failed: 0,
    times: { expires_at: Math.floor(Date.now() / 1000) + 3600 },
    stopFeeding: false,
  };
  const batches = {
    lock: () => Promise.resolve(true),
    get: () => Promise.resolve(batch),
    unlock: () => Promise.resolve(),
    fed: () => Promise.resolve([0]),
    claim: () => Promise.resolve([]),
    line: () => Promise.resolve(LINE),
  };
  const stored = {
    owner: "k1",
    model: "default",
    createdAt: Date.now() - 60_000,
    record: { status: "processing" },
    rev: 1,
    ...(started ? { startedAt: Date.now() - 1000 } : {}),
  };
  const requeued: Array<{ requestId: string; acceptedAt: number; turn: number; budget: unknown; batchLine: unknown }> =
    [];
  const deps = {
    batches,
    logger: testLogger("batch-feeder-test"),
    window: 4,
    apiKeys: { get: () => Promise.resolve({ id: "k1", scopes: ["*"], revoked: false, priority: "normal" }) },
    statuses: {
      get: () => Promise.resolve(stored),
      waitingTurn: () => Promise.resolve(waiting ? 7 : null),
    },
    jobs: {
      jobExists: () => Promise.resolve(job),
      requeueLost: (
        submission: { requestId: string; budget?: unknown; batchLine?: unknown },
        acceptedAt: number,
        turn: number,
      ) => {
        requeued.push({
          requestId: submission.requestId,
          acceptedAt,
          turn,
          budget: submission.budget,
          batchLine: submission.batchLine,
        });
        return Promise.resolve();
      },
    },
    usageBudgets: { heldFor: () => Promise.resolve({ day: "2026-11-29", month: "2026-11", tokens: 40, audioMs: 0 }) },
    modelFeatures: { of: () => Promise.resolve(null) },
    chatLimits: { maxCompletionTokens: 4096 },
  } as unknown as BatchFeederDeps;
  await new BatchFeeder(deps).step("b1", true);
  return { requeued, createdAt: stored.createdAt };
}

describe("BatchFeeder's sweep of a line whose job was lost", () => {
  it("when the line's record waits without a job, then its job is queued again at its turn, holding what it holds", async () => {
    const { requeued, createdAt } = await sweepOverWaitingLine({});
    expect(requeued).toEqual([
      {
        requestId: expect.stringContaining("b1") as unknown,
        acceptedAt: createdAt,
        turn: 7,
        budget: { day: "2026-11-29", month: "2026-11", tokens: 40, audioMs: 0 },
        batchLine: expect.objectContaining({ queueDeadline: expect.any(Number) as unknown }) as unknown,
      },
    ]);
  });

  it("when the line's record says it started, then nothing is queued again", async () => {
    expect((await sweepOverWaitingLine({ started: true })).requeued).toEqual([]);
  });

  it("when the line has left the waiting set, then nothing is queued again", async () => {
    expect((await sweepOverWaitingLine({ waiting: false })).requeued).toEqual([]);
  });

  it("when BullMQ holds the line's job, then nothing is queued again", async () => {
    expect((await sweepOverWaitingLine({ job: true })).requeued).toEqual([]);
  });
});
