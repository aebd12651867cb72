import type { MessagePort } from "node:worker_threads";
import { Piscina } from "piscina";
import { threadModule } from "./module-worker.js";
import type { TaskReply } from "./thread-pool.protocol.js";

export class ThreadPoolClosedError extends Error {
  override readonly name = "ThreadPoolClosedError";
}

/** A thread died or its module failed to load: the task may succeed on a fresh thread. */
export class ThreadCrashedError extends Error {
  override readonly name = "ThreadCrashedError";
}

/**
 * At most `size` worker threads (piscina) running `script`, whose default export is made by
 * serveTasks. Threads start on demand and are kept (idle ones do not hold the process open); each
 * runs one task at a time, further tasks wait in order. Aborting a running task terminates its
 * thread (a WASM call cannot be interrupted); a new one replaces it, as it does a crashed one.
 * This class only gives piscina's outcomes our meaning: the signal's own reason, closed, crashed.
 */
export class ThreadPool<TPayload, TResult> {
  private readonly piscina: Piscina<TPayload, TaskReply<TResult>>;
  private closed = false;

  constructor(
    script: URL,
    readonly size: number,
  ) {
    if (!Number.isInteger(size) || size < 1)
      throw new RangeError(`a thread pool needs a whole number of threads >= 1, not ${size}`);
    // atomics "async": an idle thread's event loop keeps turning ("sync" parks it between tasks),
    // so work a task leaves for the idle time (the next eSpeak instance) gets done then. Tasks here
    // take tens of ms or more: the microseconds "sync" saves on a hand-over do not count.
    this.piscina = new Piscina({
      ...threadModule(script),
      minThreads: 0,
      maxThreads: size,
      idleTimeout: Infinity,
      concurrentTasksPerWorker: 1,
      atomics: "async",
    });
    // Emitted only for a thread that fails with no task on it: nothing waits for it, the next task gets a new thread.
    this.piscina.on("error", () => undefined);
  }

  /** Threads alive now, idle or busy. */
  get threadCount(): number {
    return this.piscina.threads.length;
  }

  /** `transfer`: objects in the payload to move to the thread rather than copy (a MessagePort must be). */
  async run(payload: TPayload, signal: AbortSignal, transfer: readonly MessagePort[] = []): Promise<TResult> {
    if (this.closed) throw new ThreadPoolClosedError("the thread pool is closed");
    signal.throwIfAborted();
    let reply: TaskReply<TResult>;
    try {
      reply = await this.piscina.run(
        payload,
        transfer.length > 0 ? { signal, transferList: [...transfer] } : { signal },
      );
    } catch (error) {
      if (signal.aborted) throw signal.reason; // piscina wraps it in an AbortError
      if (this.closed) throw new ThreadPoolClosedError("the thread pool was closed", { cause: error });
      const message = error instanceof Error ? error.message : String(error);
      throw new ThreadCrashedError(`a worker thread failed: ${message}`, { cause: error });
    }
    if (!reply.ok) throw new Error(reply.message);
    return reply.result;
  }

  /** Terminates every thread; waiting and running tasks reject with ThreadPoolClosedError. */
  async close(): Promise<void> {
    this.closed = true;
    await this.piscina.destroy();
  }
}
