import { exitWhenAsked } from "./baseline-process.js";
import type { EngineCall, EngineReply } from "./direct-engine-messages.js";

/**
 * The process side of a direct-engine baseline: answers each call from the bench with `handle`,
 * says it is ready once called, and runs `close` and exits when the bench asks or disappears.
 */
export function serveEngineCalls<Q, R>(handle: (request: Q) => Promise<R>, close: () => Promise<void>): void {
  const send = (reply: EngineReply<R>) => process.send?.(reply);
  exitWhenAsked(close);
  process.on("message", (message: unknown) => {
    const { id, request } = message as EngineCall<Q>;
    handle(request).then(
      (result) => send({ kind: "result", id, result }),
      (error: unknown) =>
        send({ kind: "error", id, message: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
    );
  });
  send({ kind: "ready" });
}
