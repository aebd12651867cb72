import type { StatusStore, StoredStatus } from "@chorus/platform/scheduler";
import type { Request, Response } from "express";
import type { StatusChanges } from "../services/status-changes.js";

/** How often a queued record is read again for its queue position and ETA (no write announces those). */
const QUEUED_REREAD_MS = 1000;
/** Silence after which the stream sends `: keep-alive` (proxies close idle connections) and re-reads. */
const KEEP_ALIVE_MS = 15_000;

export interface StatusStreamDeps {
  statuses: StatusStore;
  changes: StatusChanges;
}

/** Whether the client asked for the status as Server-Sent Events (a HEAD gets the plain answer's headers). */
export function wantsEventStream(req: Request): boolean {
  return (
    req.method === "GET" &&
    req.headers.accept?.includes("text/event-stream") === true &&
    req.accepts(["application/json", "text/event-stream"]) === "text/event-stream"
  );
}

const isFinal = (stored: StoredStatus) => stored.record.status !== "processing";
const isQueued = (stored: StoredStatus) => stored.record.queuePosition !== undefined;

/** The rev the client last saw (`Last-Event-ID`), or null. */
function lastEventId(req: Request): number | null {
  const header = req.headers["last-event-id"];
  return typeof header === "string" && /^\d{1,15}$/.test(header.trim()) ? Number(header) : null;
}

/**
 * One open stream: sends the record as an `event: status` snapshot whenever it differs from the one
 * last sent, one read at a time (a change that comes during a read asks for one more read, never a
 * backlog; a client that does not read holds the next read until its buffer drains).
 */
class StatusStream {
  private lastRev = -1;
  private lastData = "";
  private reading = false;
  private again = false;
  private ended = false;
  private queuedTimer: NodeJS.Timeout | null = null;
  private readonly quietTimer: NodeJS.Timeout;
  private stopListening: () => void = () => undefined;

  constructor(
    private readonly id: string,
    private readonly res: Response,
    private readonly statuses: StatusStore,
  ) {
    this.quietTimer = setTimeout(() => this.onQuiet(), KEEP_ALIVE_MS);
    res.on("close", () => this.end());
    res.on("drain", () => {
      if (this.again) this.refresh(); // a change came while the client was not reading
    });
  }

  /** Sends `stored` unless the client already has it; the final record ends the stream. */
  show(stored: StoredStatus | null): void {
    if (this.ended) return;
    if (!stored) return this.end(); // the record expired: there is nothing more to tell
    const data = JSON.stringify(stored.record);
    if (stored.rev !== this.lastRev || data !== this.lastData)
      this.write(`event: status\nid: ${stored.rev}\ndata: ${data}\n\n`);
    this.lastRev = stored.rev;
    this.lastData = data;
    if (isFinal(stored)) return this.end();
    if (isQueued(stored)) this.queuedTimer ??= setTimeout(() => this.rereadQueued(), QUEUED_REREAD_MS);
  }

  /** Takes `stored` as already seen by the client (a resumed stream with nothing new). */
  skip(stored: StoredStatus): void {
    this.lastRev = stored.rev;
    this.lastData = JSON.stringify(stored.record);
  }

  listenWith(changes: StatusChanges): Promise<void> {
    const { subscribed, stop } = changes.listen(this.id, {
      changed: () => this.refresh(),
      closing: () => this.end(true),
    });
    this.stopListening = stop;
    if (this.ended) stop(); // the client left before this
    return subscribed;
  }

  /** Reads the record and shows it; while a read runs, one more is asked for instead. */
  refresh(): void {
    if (this.ended) return;
    if (this.reading || this.res.writableNeedDrain) return void (this.again = true);
    this.reading = true;
    this.again = false;
    this.statuses
      .get(this.id)
      .then(
        (stored) => this.show(stored),
        () => undefined, // Redis away: the next change or the quiet timer reads again
      )
      .finally(() => {
        this.reading = false;
        if (this.again) this.refresh();
      });
  }

  /** Ends the response; on shutdown also its connection, which the server would otherwise keep alive. */
  end(closeConnection = false): void {
    if (this.ended) return;
    this.ended = true;
    this.stopListening();
    clearTimeout(this.quietTimer);
    if (this.queuedTimer) clearTimeout(this.queuedTimer);
    const socket = this.res.socket;
    if (closeConnection) this.res.once("finish", () => socket?.destroy());
    this.res.end();
  }

  private rereadQueued(): void {
    this.queuedTimer = null;
    this.refresh();
  }

  private write(chunk: string): void {
    this.res.write(chunk);
    this.quietTimer.refresh();
  }

  /**
   * After a quiet spell: a comment keeps proxies from closing the connection, and a read makes up for a lost message.
   */
  private onQuiet(): void {
    this.write(": keep-alive\n\n");
    this.refresh();
  }
}

/**
 * Streams the record of `id` (already read as `stored`, and owned by the caller) as Server-Sent
 * Events until it is final: the first snapshot at once, then one on every change the status
 * writers announce, and while queued one a second as the position or ETA moves. `Last-Event-ID`
 * equal to the current rev of a record that is not queued skips that first snapshot.
 */
export function streamStatus(
  req: Request,
  res: Response,
  deps: StatusStreamDeps,
  id: string,
  stored: StoredStatus,
): void {
  res.statusCode = 200;
  res.setHeader("Content-Type", "text/event-stream; charset=utf-8");
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("X-Accel-Buffering", "no"); // nginx: pass each event on as it comes
  res.flushHeaders();
  const stream = new StatusStream(id, res, deps.statuses);
  if (res.destroyed) return stream.end(); // the client left before the stream began
  if (lastEventId(req) === stored.rev && !isQueued(stored)) stream.skip(stored);
  stream.show(stored);
  if (isFinal(stored)) return;
  // Registered before the read that follows the subscription: a change in between is seen by that read.
  void stream.listenWith(deps.changes).then(() => stream.refresh());
}
