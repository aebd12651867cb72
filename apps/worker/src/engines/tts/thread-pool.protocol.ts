import { move, transferableSymbol, valueSymbol } from "piscina";

/** Thread -> engine: a task's failure is answered, not thrown, so the pool can tell it from a thread that died. */
export type TaskReply<TResult> = { ok: true; result: TResult } | { ok: false; message: string };

export interface TaskOutcome<TResult> {
  result: TResult;
  /** Buffers to move to the engine's thread instead of copying (the encoded audio). */
  transfer?: ArrayBuffer[];
}

/** The thread side of ThreadPool: a thread module's default export, made from its task handler. */
export function serveTasks<TPayload, TResult>(
  handler: (payload: TPayload) => Promise<TaskOutcome<TResult>>,
): (payload: TPayload) => Promise<unknown> {
  return async (payload) => {
    try {
      const { result, transfer } = await handler(payload);
      const reply: TaskReply<TResult> = { ok: true, result };
      return transfer?.length ? move({ [transferableSymbol]: transfer, [valueSymbol]: reply }) : reply;
    } catch (error) {
      return {
        ok: false,
        message: error instanceof Error ? error.message : String(error),
      } satisfies TaskReply<TResult>;
    }
  };
}
