import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "@jest/globals";
import type { EchoResult, EchoTask } from "./echo-thread.test-helpers.js";
import { siblingModule } from "./module-worker.js";
import { ThreadCrashedError, ThreadPool, ThreadPoolClosedError } from "./thread-pool.js";

const SCRIPT = siblingModule("echo-thread.test-helpers", import.meta.url);
const TIMEOUT = 30_000;
const never = (): AbortSignal => new AbortController().signal;

describe("ThreadPool", () => {
  let pool: ThreadPool<EchoTask, EchoResult>;
  afterEach(async () => pool?.close());

  /**
   * Starts a task that blocks its thread until aborted; resolves once it is running (wrapped: an async function would
   * adopt the promise).
   */
  async function blocked(controller: AbortController): Promise<{ outcome: Promise<EchoResult> }> {
    const started = new SharedArrayBuffer(4);
    const outcome = pool.run({ kind: "block", started }, controller.signal);
    while (Atomics.load(new Int32Array(started), 0) === 0) await sleep(5);
    return { outcome };
  }

  it(
    "when a task runs, then its result comes back from another thread",
    async () => {
      pool = new ThreadPool(SCRIPT, 1);
      const result = await pool.run({ kind: "echo", value: "hello" }, never());
      expect(result.value).toBe("hello");
      expect(result.threadId).toBeGreaterThan(0);
    },
    TIMEOUT,
  );

  it(
    "when a task answers with a buffer to move, then its bytes arrive whole",
    async () => {
      pool = new ThreadPool(SCRIPT, 1);
      const result = await pool.run({ kind: "bytes", length: 1024 }, never());
      expect(new Uint8Array(result.bytes ?? new ArrayBuffer(0))).toEqual(new Uint8Array(1024).fill(7));
    },
    TIMEOUT,
  );

  it(
    "when more tasks than threads arrive, then no more than `size` threads start and all tasks finish",
    async () => {
      pool = new ThreadPool(SCRIPT, 2);
      const results = await Promise.all(
        ["a", "b", "c", "d", "e"].map((value) => pool.run({ kind: "echo", value }, never())),
      );
      expect(results.map((result) => result.value)).toEqual(["a", "b", "c", "d", "e"]);
      expect(new Set(results.map((result) => result.threadId)).size).toBeLessThanOrEqual(2);
      expect(pool.threadCount).toBeLessThanOrEqual(2);
    },
    TIMEOUT,
  );

  it(
    "when a task fails, then it rejects with the thread's message and the thread is reused",
    async () => {
      pool = new ThreadPool(SCRIPT, 1);
      const first = await pool.run({ kind: "echo", value: "x" }, never());
      await expect(pool.run({ kind: "fail", message: "no such voice" }, never())).rejects.toThrow("no such voice");
      expect((await pool.run({ kind: "echo", value: "y" }, never())).threadId).toBe(first.threadId);
    },
    TIMEOUT,
  );

  it(
    "when a thread dies, then its task rejects with ThreadCrashedError and a new thread takes the next task",
    async () => {
      pool = new ThreadPool(SCRIPT, 1);
      const first = await pool.run({ kind: "echo", value: "x" }, never());
      await expect(pool.run({ kind: "crash" }, never())).rejects.toBeInstanceOf(ThreadCrashedError);
      expect((await pool.run({ kind: "echo", value: "y" }, never())).threadId).not.toBe(first.threadId);
    },
    TIMEOUT,
  );

  it(
    "when a running task is aborted, then it rejects with the reason and its blocked thread is replaced",
    async () => {
      pool = new ThreadPool(SCRIPT, 1);
      const controller = new AbortController();
      const { outcome } = await blocked(controller);
      const reason = new Error("client went away");
      controller.abort(reason);
      await expect(outcome).rejects.toBe(reason);
      expect((await pool.run({ kind: "echo", value: "after" }, never())).value).toBe("after");
      expect(pool.threadCount).toBe(1);
    },
    TIMEOUT,
  );

  it(
    "when a waiting task is aborted, then it rejects with the reason without ever running",
    async () => {
      pool = new ThreadPool(SCRIPT, 1);
      const blocker = new AbortController();
      const { outcome: running } = await blocked(blocker);
      const waiting = new AbortController();
      const neverStarted = new SharedArrayBuffer(4);
      const queued = pool.run({ kind: "block", started: neverStarted }, waiting.signal);
      waiting.abort(new Error("not needed any more"));
      await expect(queued).rejects.toThrow("not needed any more");
      blocker.abort(new Error("done"));
      await expect(running).rejects.toThrow("done");
      expect(new Int32Array(neverStarted)[0]).toBe(0);
    },
    TIMEOUT,
  );

  it(
    "when the signal is already aborted, then the task rejects at once and no thread starts",
    async () => {
      pool = new ThreadPool(SCRIPT, 1);
      const controller = new AbortController();
      controller.abort(new Error("too late"));
      await expect(pool.run({ kind: "echo", value: "x" }, controller.signal)).rejects.toThrow("too late");
      expect(pool.threadCount).toBe(0);
    },
    TIMEOUT,
  );

  it(
    "when closed, then running and waiting tasks reject with ThreadPoolClosedError, threads stop, and new tasks are refused",
    async () => {
      pool = new ThreadPool(SCRIPT, 1);
      const { outcome: running } = await blocked(new AbortController());
      const waiting = pool.run({ kind: "echo", value: "x" }, never());
      // Handlers first: the rejections happen inside close().
      const rejections = [
        expect(running).rejects.toBeInstanceOf(ThreadPoolClosedError),
        expect(waiting).rejects.toBeInstanceOf(ThreadPoolClosedError),
      ];
      await pool.close();
      await Promise.all(rejections);
      expect(pool.threadCount).toBe(0);
      await expect(pool.run({ kind: "echo", value: "y" }, never())).rejects.toBeInstanceOf(ThreadPoolClosedError);
    },
    TIMEOUT,
  );

  it("when the size is not a whole number >= 1, then construction fails", () => {
    expect(() => new ThreadPool(SCRIPT, 0)).toThrow(RangeError);
  });
});
