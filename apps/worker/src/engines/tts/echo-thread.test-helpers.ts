import { threadId } from "node:worker_threads";
import { serveTasks } from "./thread-pool.protocol.js";

// A thread module for the ThreadPool tests: what it does is chosen by each task's payload.

export type EchoTask =
  | { kind: "echo"; value: string }
  /** Answers with a buffer moved, not copied, to the caller. */
  | { kind: "bytes"; length: number }
  | { kind: "fail"; message: string }
  | { kind: "crash" }
  /** Sets `started[0]` to 1, then blocks the thread for good: only terminating it ends the task. */
  | { kind: "block"; started: SharedArrayBuffer };

export interface EchoResult {
  value?: string;
  bytes?: ArrayBuffer;
  threadId: number;
}

export default serveTasks<EchoTask, EchoResult>((task) => {
  switch (task.kind) {
    case "echo":
      return Promise.resolve({ result: { value: task.value, threadId } });
    case "bytes": {
      const bytes = new Uint8Array(task.length).fill(7).buffer;
      return Promise.resolve({ result: { bytes, threadId }, transfer: [bytes] });
    }
    case "fail":
      return Promise.reject(new Error(task.message));
    case "block": {
      const started = new Int32Array(task.started);
      Atomics.store(started, 0, 1);
      for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
    }
    case "crash":
      process.exit(3);
  }
});
