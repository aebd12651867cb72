import type { ReplyDelta } from "@chorus/contracts";
import { cleanPartialReply, STOP_SEQUENCES } from "../engines/llm/stop-sequences.js";

/** Publishes one message on the reply-delta channel. */
export type PublishReplyDelta = (message: string) => Promise<unknown>;

/**
 * The growth of one streamed reply, published as ReplyDelta messages: the engine's text so far is
 * cleaned as the final reply will be (cleanPartialReply), and what it adds to what was published
 * goes out at most once per `intervalMs` (the latest text then, so a fast engine's tokens come in
 * small batches), never two publishes in flight. A text that does not extend the published one
 * (the start of a stop sequence held back, then dropped) waits for the next.
 */
export class ReplyDeltaPublisher {
  private published = "";
  private latest = "";
  private lastPublishMs = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | null = null;
  private inFlight = false;
  private stopped = false;

  constructor(
    /** The request, and this attempt at it (each attempt publishes its own text from its start). */
    private readonly reply: { id: string; attempt: string },
    private readonly publish: PublishReplyDelta,
    private readonly intervalMs: number,
    /** The job's stop sequences: text that may begin one is held back, as the final reply drops it. */
    private readonly stops: readonly string[] = STOP_SEQUENCES,
    private readonly now: () => number = Date.now,
    /** A raw prompt's continuation keeps its leading space, as its final reply does. */
    private readonly keepLeadingSpace = false,
  ) {}

  onText(raw: string): void {
    this.latest = raw;
    if (this.timer || this.inFlight || this.stopped) return;
    const wait = this.lastPublishMs + this.intervalMs - this.now();
    if (wait <= 0) this.send();
    else this.timer = setTimeout(() => this.send(), wait);
  }

  /** No more publishes: the final record carries the whole reply. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private send(): void {
    this.timer = null;
    if (this.stopped) return;
    const text = cleanPartialReply(this.latest, this.stops, this.keepLeadingSpace);
    if (text.length <= this.published.length || !text.startsWith(this.published)) return;
    const delta: ReplyDelta = {
      id: this.reply.id,
      attempt: this.reply.attempt,
      at: this.published.length,
      text: text.slice(this.published.length),
    };
    this.published = text;
    this.lastPublishMs = this.now();
    this.inFlight = true;
    this.publish(JSON.stringify(delta))
      .catch(() => undefined) // a lost delta is made up for by the record's partialReply and the final reply
      .finally(() => {
        this.inFlight = false;
        if (cleanPartialReply(this.latest, this.stops, this.keepLeadingSpace) !== this.published)
          this.onText(this.latest);
      });
  }
}
