import type { Worker } from "node:worker_threads";
import { spawnModuleWorker } from "./module-worker.js";
import type { ReplyMessage } from "./thread-pool.protocol.js";

interface Task<TResult> {
  id: number;
  payload: unknown;
  onProgress: ((fraction: number) => void) | undefined;
  settle: (outcome: { ok: true; value: TResult } | { ok: false; error: unknown }) => void;
}

export class ThreadPoolClosedError extends Error {
  override readonly name = "ThreadPoolClosedError";
}

/** A thread died or its module failed to load: the task may succeed on a fresh thread. */
export class ThreadCrashedError extends Error {
  override readonly name = "ThreadCrashedError";
}

/**
 * At most `size` worker threads running `script` (which calls serveTasks), started on demand and
 * kept for reuse. Each thread runs one task at a time; further tasks wait in order. Aborting a
 * running task terminates its thread (a WASM call cannot be interrupted) and a new one replaces it.
 * Idle threads do not keep the process alive.
 */
export class ThreadPool<TPayload, TResult> {
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Task<TResult>>();
  private readonly queue: Task<TResult>[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly script: URL,
    readonly size: number,
  ) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`a thread pool needs a whole number of threads >= 1, not ${size}`);
  }

  /** Threads alive now, idle or busy. */
  get threadCount(): number {
    return this.idle.length + this.busy.size;
  }

  run(payload: TPayload, signal: AbortSignal, onProgress?: (fraction: number) => void): Promise<TResult> {
    if (this.closed) return Promise.reject(new ThreadPoolClosedError("the thread pool is closed"));
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<TResult>((resolve, reject) => {
      const onAbort = (): void => this.abort(task, signal.reason);
      let settled = false;
      const task: Task<TResult> = {
        id: this.nextId++,
        payload,
        onProgress,
        settle: (outcome) => {
          if (settled) return;
          settled = true;
          signal.removeEventListener("abort", onAbort);
          if (outcome.ok) resolve(outcome.value);
          else reject(outcome.error);
        },
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.queue.push(task);
      this.dispatch();
    });
  }

  /** Terminates every thread; waiting and running tasks reject with ThreadPoolClosedError. */
  async close(): Promise<void> {
    this.closed = true;
    const error = new ThreadPoolClosedError("the thread pool was closed");
    for (const task of this.queue.splice(0)) task.settle({ ok: false, error });
    for (const task of this.busy.values()) task.settle({ ok: false, error });
    const workers = [...this.idle.splice(0), ...this.busy.keys()];
    this.busy.clear();
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0 && !this.closed) {
      const worker = this.idle.pop() ?? (this.threadCount < this.size ? this.spawn() : undefined);
      if (!worker) return;
      const task = this.queue.shift() as Task<TResult>;
      this.busy.set(worker, task);
      worker.ref();
      worker.postMessage({ id: task.id, payload: task.payload });
    }
  }

  private spawn(): Worker {
    const worker = spawnModuleWorker(this.script);
    worker.on("message", (message: ReplyMessage<TResult>) => this.onReply(worker, message));
    worker.on("error", (error) => this.onCrash(worker, error));
    worker.on("exit", (code) => this.onCrash(worker, new Error(`the thread exited with code ${code}`)));
    return worker;
  }

  private onReply(worker: Worker, message: ReplyMessage<TResult>): void {
    const task = this.busy.get(worker);
    if (!task || task.id !== message.id) return;
    if (message.kind === "progress") {
      task.onProgress?.(message.fraction);
      return;
    }
    this.busy.delete(worker);
    worker.unref();
    this.idle.push(worker);
    task.settle(message.kind === "done" ? { ok: true, value: message.result } : { ok: false, error: new Error(message.message) });
    this.dispatch();
  }

  /** Runs for 'error' and again for the 'exit' that follows it, and for threads we terminated: idempotent. */
  private onCrash(worker: Worker, error: Error): void {
    const task = this.busy.get(worker);
    this.busy.delete(worker);
    const idleAt = this.idle.indexOf(worker);
    if (idleAt >= 0) this.idle.splice(idleAt, 1);
    task?.settle({ ok: false, error: new ThreadCrashedError(`a worker thread failed: ${error.message}`, { cause: error }) });
    this.dispatch();
  }

  private abort(task: Task<TResult>, reason: unknown): void {
    const queued = this.queue.indexOf(task);
    if (queued >= 0) this.queue.splice(queued, 1);
    for (const [worker, running] of this.busy) {
      if (running !== task) continue;
      this.busy.delete(worker);
      void worker.terminate();
    }
    task.settle({ ok: false, error: reason });
    this.dispatch();
  }
}
