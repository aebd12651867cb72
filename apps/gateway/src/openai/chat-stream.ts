import { once } from "node:events";
import { setTimeout as delay } from "node:timers/promises";
import { ApiError, type CompletionIdentity, type MappedChatRequest } from "@chorus/contracts";
import type { StatusStore } from "@chorus/platform/scheduler";
import type { Response } from "express";
import type { ReplyDeltas } from "../services/reply-deltas.js";
import type { StatusChanges } from "../services/status-changes.js";
import { ChunkWriter } from "./chunk-writer.js";
import { recordFailure } from "./record-failure.js";

/** Silence after which the stream sends a comment (proxies close idle connections) and reads the record again. */
const KEEP_ALIVE_MS = 15_000;

const SHUTTING_DOWN = new ApiError("SERVICE_UNAVAILABLE", "the gateway is shutting down; retry the request");

export interface ChatStreamDeps {
  statuses: StatusStore;
  changes: StatusChanges;
  deltas: ReplyDeltas;
}

/**
 * Streams a completion as chat.completion.chunk events: the role, then the reply as it grows, then
 * the last chunk, usage (when asked) and [DONE]. The growth comes as the worker publishes it
 * (ReplyDelta, at most every 50 ms); besides, each change of the record is announced on
 * status-changed and the latest record is read (one read at a time): its partial reply fills what a
 * lost or skipped delta left out, and its final reply ends the stream. Whatever stops the stream
 * before that (a failed job, a reply that changed under the client, Redis, the gateway shutting
 * down) ends it with an error event, never as if it were whole. Ends when the client leaves.
 */
export async function streamCompletion(
  res: Response,
  deps: ChatStreamDeps,
  identity: CompletionIdentity,
  mapped: MappedChatRequest,
): Promise<void> {
  res.status(200);
  res.setHeader("Content-Type", "text/event-stream; charset=utf-8");
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("X-Accel-Buffering", "no");
  res.flushHeaders();
  const writer = new ChunkWriter(res, identity, mapped);
  let nudge: () => void = () => undefined;
  let closing = false;
  const { subscribed, stop } = deps.changes.listen(identity.requestId, {
    changed: () => nudge(),
    closing: () => ((closing = true), nudge()),
  });
  const deltas = deps.deltas.listen(identity.requestId, (delta) => writer.append(delta));
  const left = once(res, "close").then(
    () => undefined,
    () => undefined,
  );
  try {
    await Promise.all([subscribed, deltas.subscribed]);
    writer.start();
    while (!res.closed && !writer.ended) {
      if (closing) return writer.fail(SHUTTING_DOWN);
      const nudged = new Promise<void>((resolve) => (nudge = resolve));
      const stored = await deps.statuses.get(identity.requestId);
      if (stored?.record.status === "completed") return writer.finish(stored.record);
      if (!stored || stored.record.status === "error") return writer.fail(recordFailure(stored?.record));
      writer.snapshot(stored);
      if (res.writableNeedDrain) await Promise.race([once(res, "drain").catch(() => undefined), left]);
      await quietOrNudged(res, nudged, left);
    }
  } catch (error) {
    writer.fail(new ApiError("SERVICE_UNAVAILABLE", `the stream broke off: ${String(error)}; retry the request`));
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
