import { once } from "node:events";
import { setTimeout as delay } from "node:timers/promises";
import {
  ApiError,
  chatCompletionChunk,
  toOpenAiError,
  usageChunk,
  finishReasonOf,
  type CompletionIdentity,
  type MappedChatRequest,
  type ReplyDelta,
  type StatusRecord,
} from "@chorus/contracts";
import type { StatusStore } from "@chorus/platform/scheduler";
import type { Response } from "express";
import type { ReplyDeltas } from "../services/reply-deltas.js";
import type { StatusChanges } from "../services/status-changes.js";
import { recordFailure } from "./record-failure.js";

/** Silence after which the stream sends a comment (proxies close idle connections) and reads the record again. */
const KEEP_ALIVE_MS = 15_000;

export interface ChatStreamDeps {
  statuses: StatusStore;
  changes: StatusChanges;
  deltas: ReplyDeltas;
}

/** Writes one completion's Server-Sent Events; remembers the reply sent so far, to send only what is new. */
class ChunkWriter {
  private sent = "";
  /** Between the role chunk and the end: content may be sent. */
  private open = false;

  constructor(
    private readonly res: Response,
    private readonly identity: CompletionIdentity,
    private readonly mapped: MappedChatRequest,
  ) {}

  event(data: object | string): void {
    this.res.write(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
  }

  start(): void {
    this.event(chatCompletionChunk(this.identity, { role: "assistant", content: "" }, null, this.mapped.includeUsage));
    this.open = true;
  }

  /**
   * Sends what a worker's ReplyDelta adds, when it starts at or before where the client stands (one
   * lost or one skipped while the client was not reading leaves a gap, which the record fills).
   */
  append(delta: ReplyDelta): void {
    const end = delta.at + delta.text.length;
    if (
      !this.open ||
      this.res.closed ||
      this.res.writableNeedDrain ||
      delta.at > this.sent.length ||
      end <= this.sent.length
    )
      return;
    this.delta(this.sent + delta.text.slice(this.sent.length - delta.at));
  }

  /**
   * Sends what `text` (the reply so far, cleaned as the final reply is) adds to what was sent. A
   * text that does not extend it (a stop sequence's start held back, then dropped) waits for the next.
   */
  delta(text: string | undefined): void {
    if (text === undefined || text.length <= this.sent.length || !text.startsWith(this.sent)) return;
    const content = text.slice(this.sent.length);
    this.sent = text;
    this.event(chatCompletionChunk(this.identity, { content }, null, this.mapped.includeUsage));
  }

  /** The rest of the reply, the choice's last chunk, the usage chunk when asked for, then [DONE]. */
  finish(record: StatusRecord): void {
    this.delta(record.reply);
    this.open = false;
    this.event(chatCompletionChunk(this.identity, {}, finishReasonOf(record), this.mapped.includeUsage));
    if (this.mapped.includeUsage) this.event(usageChunk(this.identity, record));
    this.event("[DONE]");
  }

  /** A failure after the headers: an `error` event, which the official SDKs throw as an APIError. */
  fail(error: ApiError): void {
    this.open = false;
    this.event(toOpenAiError(error));
  }
}

/**
 * Streams a completion as chat.completion.chunk events: the role, then the reply as it grows, then
 * the last chunk, usage (when asked) and [DONE]. The growth comes as the worker publishes it
 * (ReplyDelta, at most every 50 ms); besides, each change of the record is announced on
 * status-changed, as for the native status stream, and the latest record is read (one read at a
 * time): its partialReply fills what a lost delta, or one skipped while the client was not
 * reading, left out, and its final reply ends the stream. Ends when the client leaves.
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
  const changed = () => nudge();
  const { subscribed, stop } = deps.changes.listen(identity.requestId, {
    changed,
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
    while (!res.closed && !closing) {
      const nudged = new Promise<void>((resolve) => (nudge = resolve));
      const stored = await deps.statuses.get(identity.requestId);
      if (stored?.record.status === "completed") return writer.finish(stored.record);
      if (!stored || stored.record.status === "error") return writer.fail(recordFailure(stored?.record));
      writer.delta(stored.record.partialReply);
      if (res.writableNeedDrain) await Promise.race([once(res, "drain").catch(() => undefined), left]);
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
  } finally {
    stop();
    deltas.stop();
    if (!res.closed) res.end();
  }
}
