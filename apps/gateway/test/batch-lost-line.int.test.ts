import { afterAll, beforeAll, expect, it, jest } from "@jest/globals";
import type { GenerateTextJob } from "@chorus/contracts";
import { StatusStore } from "@chorus/platform/scheduler";
import { Queue, type JobsOptions } from "bullmq";
import { describeWithModel } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { loadFixtureEngine, startTestWorker, type LlmEngine, type TestWorker } from "../../../test-support/worker.js";
import { batchCompleted, createBatchOverHttp } from "../../../test-support/batches.js";
import { countingEngine } from "../../../test-support/counting-engine.js";
import { waitFor } from "../../../test-support/wait-for.js";

const LINES = 3;

/** A prototype's own method as it is before a spy replaces it, to be called with the instance's `this`. */
const originalOf = <F>(prototype: object, name: string) => Object.getOwnPropertyDescriptor(prototype, name)?.value as F;

const chatLine = (i: number) =>
  JSON.stringify({
    custom_id: `req-${i}`,
    method: "POST",
    url: "/v1/chat/completions",
    body: { model: "default", messages: [{ role: "user", content: `Say hello ${i}` }], max_tokens: 8, seed: i },
  });

/**
 * A feeder that dies between a line's record and its job (or a Redis that refuses both the job and
 * the record's closing) leaves a record waiting in the queue with no job behind it. The feeders' sweep
 * queues that job again, so the line runs (once) instead of waiting for the lost-job sweep to fail it.
 * The first batch line's job add is refused here, and so is the closing of its record.
 */
describeWithModel("a batch line whose job was lost between its record and the queue", () => {
  let gw: TestGateway;
  let worker: TestWorker;
  let fixture: LlmEngine;
  let counting: ReturnType<typeof countingEngine>;
  let lost: string | undefined;

  beforeAll(async () => {
    const prefix = uniquePrefix("batch-lost-line");
    gw = await startTestGateway(prefix, { BATCH_WINDOW: "2" });
    fixture = await loadFixtureEngine(2, 1024, "server");
    counting = countingEngine(fixture);
    worker = await startTestWorker(prefix, counting.engine);
    const add = originalOf<Queue["add"]>(Queue.prototype, "add");
    jest.spyOn(Queue.prototype, "add").mockImplementation(function (
      this: Queue,
      name: string,
      data: unknown,
      opts?: JobsOptions,
    ) {
      if (lost === undefined && (data as GenerateTextJob).batchLine) {
        lost = opts?.jobId;
        return Promise.reject(new Error("the feeder died here"));
      }
      return add.call(this, name, data, opts);
    });
    const fail = originalOf<StatusStore["fail"]>(StatusStore.prototype, "fail");
    let refusedClose = false;
    jest.spyOn(StatusStore.prototype, "fail").mockImplementation(function (this: StatusStore, id, ...rest) {
      if (id === lost && !refusedClose) {
        refusedClose = true;
        return Promise.reject(new Error("Redis refused the closing too"));
      }
      return fail.call(this, id, ...rest);
    });
  }, 120_000);
  afterAll(async () => {
    jest.restoreAllMocks();
    await worker.close();
    await fixture.close();
    await gw.close();
  }, 60_000);

  it("when a line's record was written and its job never queued, then the sweep queues it and every line runs once", async () => {
    const key = await gw.createKey({ limits: { text: 1_000_000, status: 1_000_000 } });
    const created = await createBatchOverHttp(
      gw.app,
      key,
      Array.from({ length: LINES }, (_, i) => chatLine(i)),
    );
    expect(created.status).toBe(200);
    const batchId = (created.body as { id: string }).id;
    await waitFor("the first line's job refused", () => lost !== undefined);
    const record = await gw.deps.statuses.get(lost!);
    expect(record?.record.status).toBe("processing");
    const completed = await batchCompleted(gw.app, key, batchId, 45_000);
    expect(completed.request_counts).toEqual({ total: LINES, completed: LINES, failed: 0 });
    expect((await gw.deps.statuses.get(lost!))?.record.status).toBe("completed");
    expect(counting.calls()).toBe(LINES);
  }, 60_000);
});
