import { once } from "node:events";
import { setTimeout as delay } from "node:timers/promises";
import { ApiError } from "@chorus/contracts";
import type { StatusStore } from "@chorus/platform/scheduler";
import type { Response } from "express";
import type { ReplyDeltas } from "../services/reply-deltas.js";
import type { StatusChanges } from "../services/status-changes.js";
import { recordFailure } from "./record-failure.js";
import type { ReplyEvents } from "./reply-events.js";

/** Silence after which the stream sends a comment (proxies close idle connections) and reads the record again. */
const KEEP_ALIVE_MS = 15_000;

const SHUTTING_DOWN = new ApiError("SERVICE_UNAVAILABLE", "the gateway is shutting down; retry the request");

export interface ChatStreamDeps {
  statuses: StatusStore;
  changes: StatusChanges;
  deltas: ReplyDeltas;
}

/** Server-Sent Events headers: no caching, no proxy buffering. */
export function startEventStream(res: Response): void {
  res.status(200);
  res.setHeader("Content-Type", "text/event-stream; charset=utf-8");
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("X-Accel-Buffering", "no");
  res.flushHeaders();
}

/**
 * Streams one job's reply as `events` (one API's shape): its opening, then the reply as it grows,
 * then its closing. The growth comes as the worker publishes it (ReplyDelta, at most every 50 ms);
 * besides, each change of the record is announced on status-changed and the latest record is read
 * (one read at a time): its partial reply fills what a lost or skipped delta left out, and its final
 * reply ends the stream. Whatever stops it before that (a failed job, a reply that changed under the
 * client, Redis, shutdown) ends it with an error event, never as if it were whole.
 */
export async function streamCompletion(
  res: Response,
  deps: ChatStreamDeps,
  requestId: string,
  events: ReplyEvents,
): Promise<void> {
  if (!res.headersSent) startEventStream(res);
  let nudge: () => void = () => undefined;
  let closing = false;
  const { subscribed, stop } = deps.changes.listen(requestId, {
    changed: () => nudge(),
    closing: () => ((closing = true), nudge()),
  });
  const deltas = deps.deltas.listen(requestId, (delta) => events.append(delta));
  const left = once(res, "close").then(
    () => undefined,
    () => undefined,
  );
  try {
    await Promise.all([subscribed, deltas.subscribed]);
    events.start();
    while (!res.closed && !events.ended) {
      if (closing) return events.fail(SHUTTING_DOWN);
      const nudged = new Promise<void>((resolve) => (nudge = resolve));
      const stored = await deps.statuses.get(requestId);
      if (stored?.record.status === "completed") return events.finish(stored.record);
      if (!stored || stored.record.status === "error")
        return events.fail(recordFailure(stored?.record), stored?.record);
      events.snapshot(stored);
      if (res.writableNeedDrain) await Promise.race([once(res, "drain").catch(() => undefined), left]);
      await quietOrNudged(res, nudged, left);
    }
  } catch (error) {
    events.fail(new ApiError("SERVICE_UNAVAILABLE", `the stream broke off: ${String(error)}; retry the request`));
  } finally {
    stop();
    deltas.stop();
    if (!res.closed) res.end();
  }
}

/** Waits for a nudge or the client leaving; after KEEP_ALIVE_MS of silence, a comment (and another read). */
async function quietOrNudged(res: Response, nudged: Promise<void>, left: Promise<void>): Promise<void> {
  const quiet = new AbortController();
  await Promise.race([
    nudged,
    left,
    delay(KEEP_ALIVE_MS, "quiet", { signal: quiet.signal }).then(
      () => !res.closed && res.write(": keep-alive\n\n"),
      () => undefined,
    ),
  ]);
  quiet.abort();
}
