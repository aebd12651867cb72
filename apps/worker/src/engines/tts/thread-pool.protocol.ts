import { parentPort } from "node:worker_threads";

/** Engine -> thread. */
export interface TaskMessage<TPayload> {
  id: number;
  payload: TPayload;
}

/** Thread -> engine. */
export type ReplyMessage<TResult> = { id: number; kind: "progress"; fraction: number } | { id: number; kind: "done"; result: TResult } | { id: number; kind: "failed"; message: string };

export interface TaskOutcome<TResult> {
  result: TResult;
  /** Buffers to move to the engine's thread instead of copying (the encoded audio). */
  transfer?: ArrayBuffer[];
}

/**
 * The thread side of ThreadPool: runs `handler` for each task it receives, one at a time (the pool
 * never sends a second task before the first is answered), and answers with its outcome.
 */
export function serveTasks<TPayload, TResult>(handler: (payload: TPayload, reportProgress: (fraction: number) => void) => Promise<TaskOutcome<TResult>>): void {
  const port = parentPort;
  if (!port) throw new Error("serveTasks() must run in a worker thread");
  port.on("message", ({ id, payload }: TaskMessage<TPayload>) => {
    const progress = (fraction: number): void => port.postMessage({ id, kind: "progress", fraction } satisfies ReplyMessage<TResult>);
    handler(payload, progress).then(
      ({ result, transfer }) => port.postMessage({ id, kind: "done", result } satisfies ReplyMessage<TResult>, transfer ?? []),
      (error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        port.postMessage({ id, kind: "failed", message } satisfies ReplyMessage<TResult>);
      },
    );
  });
}
