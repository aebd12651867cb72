/** The reply streamed so far was contradicted: another attempt wrote a different one. */
export class ReplyDiverged extends Error {}

const DIVERGED =
  "the reply changed after part of it was streamed (the job was run again and its new attempt wrote a different reply); retry the request";

/**
 * The reply a streamed completion sends, assembled from what the job's attempts report: each
 * attempt's text from its start (its deltas, the record's partial reply), then the final reply.
 * The client gets only text that extends what it has; a later attempt (a retry, a take-over) is
 * followed only while its text continues exactly that, and anything that contradicts it (a
 * different attempt's text, a final reply) throws ReplyDiverged: the stream must end with an error
 * rather than splice two replies.
 */
export class StreamedReply {
  private sent = "";
  /** The attempt whose text the client has (null before anything was sent). */
  private current: string | null = null;
  /** Each attempt's text so far, from its start, as far as it is known without a gap. */
  private readonly known = new Map<string, string>();
  /** Attempts the stream has moved on from: what they say later is of no account. */
  private readonly retired = new Set<string>();

  get text(): string {
    return this.sent;
  }

  /** A piece of `attempt`'s text from character `at`; returns what the client may be sent now. */
  delta(attempt: string, at: number, piece: string): string {
    const known = this.known.get(attempt) ?? "";
    if (at > known.length) return ""; // a piece missed before this one: the record's partial reply fills it
    return this.snapshot(attempt, known.slice(0, at) + piece);
  }

  /** `attempt`'s whole text so far; returns what the client may be sent now. */
  snapshot(attempt: string, text: string): string {
    const known = this.known.get(attempt) ?? "";
    if (text.length > known.length && text.startsWith(known)) this.known.set(attempt, text);
    return this.offer(attempt, this.known.get(attempt) ?? text);
  }

  /** The final reply: what is left to send, or ReplyDiverged when it does not continue what was sent. */
  final(reply: string): string {
    if (!reply.startsWith(this.sent)) throw new ReplyDiverged(DIVERGED);
    return this.advance(reply);
  }

  private offer(attempt: string, text: string): string {
    if (this.retired.has(attempt)) return "";
    const following = this.current === null || attempt === this.current;
    if (text.startsWith(this.sent) && (following || text.length >= this.sent.length)) {
      if (this.current !== null && attempt !== this.current) this.retired.add(this.current);
      this.current = attempt;
      return this.advance(text);
    }
    if (this.sent.startsWith(text)) return ""; // behind what was sent, and agreeing with it so far
    throw new ReplyDiverged(DIVERGED);
  }

  private advance(text: string): string {
    const added = text.slice(this.sent.length);
    this.sent = text;
    return added;
  }
}
