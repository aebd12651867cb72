import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";

/** The fields of one entry of llama-server's GET /slots read here. */
interface SlotState {
  id: number;
  is_processing: boolean;
  params?: { seed?: number };
  next_token?: { n_decoded?: number }[];
  /** The text generated so far; sent only by a server started with LLAMA_SERVER_SLOTS_DEBUG=1. */
  generated?: string;
}

interface Polling {
  stop: AbortController;
}

interface Watcher {
  seed: number;
  reported: number;
  onTokens: (tokens: number, text?: string) => void;
  /** When its job started being watched (ms, monotonic clock). */
  since: number;
}

/**
 * Progress of the jobs on llama-server, read from GET /slots a few times a second (one request for
 * every slot; a per-token stream cost ~15 % of the decode rate). A slot's figures are a job's only
 * while its task carries that job's seed, and its `generated` text only once it has decoded a token
 * of this task: until then the server shows the previous task's text there.
 */
export class SlotMonitor {
  private readonly watchers = new Map<number, Watcher>();
  /** The running poll loop, if any; stopped when the last watcher leaves. */
  private polling: Polling | null = null;
  /** When the last read of /slots ended (ms, monotonic clock): a slow answer does not bring the next read sooner. */
  private lastReadAt = 0;

  constructor(
    private readonly slotsUrl: () => string,
    private readonly intervalMs: number,
  ) {}

  /** Reports the tokens decoded (and the text so far) on `slotId` for the job with `seed`; returns the way to stop. */
  watch(slotId: number, seed: number, onTokens: (tokens: number, text?: string) => void): () => void {
    const watcher: Watcher = { seed, reported: 0, onTokens, since: performance.now() };
    this.watchers.set(slotId, watcher);
    this.polling ??= this.poll(new AbortController());
    return () => {
      if (this.watchers.get(slotId) === watcher) this.watchers.delete(slotId);
      // The last job gone, the loop stops at once: a job that starts next gets a first read a full
      // interval after its own start, so one shorter than that is never read (nor slowed) at all.
      if (this.watchers.size === 0 && this.polling) {
        this.polling.stop.abort();
        this.polling = null; // forgotten now: a job starting in this same tick starts a new loop
      }
    };
  }

  /** Resolves once the slot is not processing (a cancelled task is let go within about a second). */
  async untilIdle(slotId: number, timeoutMs = 10_000): Promise<void> {
    const giveUpAt = Date.now() + timeoutMs;
    while (Date.now() < giveUpAt) {
      const slot = (await this.read())?.find((s) => s.id === slotId);
      if (slot?.is_processing !== true) return;
      await sleep(this.intervalMs);
    }
  }

  private poll(stop: AbortController): Polling {
    const run = async () => {
      while (this.watchers.size > 0 && !stop.signal.aborted) {
        await sleep(this.untilDue(), undefined, { signal: stop.signal }).catch(() => undefined);
        if (stop.signal.aborted) break;
        if (this.untilDue() > 0) continue; // the job it waited for has ended: the next is not due yet
        const slots = await this.read();
        this.lastReadAt = performance.now();
        this.report(slots);
      }
      if (this.polling?.stop === stop) this.polling = null;
    };
    void run(); // never rejects: read() answers null on any failure, report() catches callbacks
    return { stop };
  }

  /**
   * Ms until the next read: a full interval after the last read, and after the longest-watched job
   * started. Jobs shorter than the interval that follow each other on busy slots (a batch's lines) are
   * then never read, as a lone short job is not; reading /slots takes the server's loop from decoding.
   */
  private untilDue(): number {
    let oldest = Infinity;
    for (const watcher of this.watchers.values()) oldest = Math.min(oldest, watcher.since);
    return Math.max(0, Math.max(oldest, this.lastReadAt) + this.intervalMs - performance.now());
  }

  private report(slots: SlotState[] | null): void {
    for (const slot of slots ?? []) {
      const watcher = this.watchers.get(slot.id);
      const tokens = slot.next_token?.[0]?.n_decoded ?? 0;
      if (!watcher || !slot.is_processing || slot.params?.seed !== watcher.seed || tokens <= watcher.reported) continue;
      watcher.reported = tokens;
      try {
        watcher.onTokens(tokens, slot.generated);
      } catch {
        this.watchers.delete(slot.id); // a watcher that cannot take a report is not asked again
      }
    }
  }

  /** The slots, or null while the server cannot answer (it may be restarting). */
  private async read(): Promise<SlotState[] | null> {
    try {
      const response = await fetch(this.slotsUrl(), { signal: AbortSignal.timeout(5000) });
      return response.ok ? ((await response.json()) as SlotState[]) : null;
    } catch {
      return null;
    }
  }
}
