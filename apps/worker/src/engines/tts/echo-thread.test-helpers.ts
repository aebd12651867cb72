import { threadId } from "node:worker_threads";
import { serveTasks } from "./thread-pool.protocol.js";

// A thread module for the ThreadPool tests: what it does is chosen by each task's payload.

export type EchoTask =
  | { kind: "echo"; value: string }
  | { kind: "progress"; steps: number }
  | { kind: "fail"; message: string }
  | { kind: "crash" }
  /** Reports progress 0, then blocks the thread for good: only terminating it ends the task. */
  | { kind: "block" };

export interface EchoResult {
  value?: string;
  threadId: number;
}

serveTasks<EchoTask, EchoResult>(async (task, reportProgress) => {
  switch (task.kind) {
    case "echo":
      return { result: { value: task.value, threadId } };
    case "progress":
      for (let step = 1; step <= task.steps; step += 1) reportProgress(step / task.steps);
      return { result: { threadId } };
    case "fail":
      throw new Error(task.message);
    case "block":
      reportProgress(0);
      await new Promise((resolve) => setImmediate(resolve)); // let the progress message leave first
      for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
    case "crash":
      process.exit(3);
  }
});
