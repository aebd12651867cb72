import type { ProgressEstimator } from "./progress-estimator.js";

/** Writes progress, ETA and (when the engine tells it) the reply so far. */
export type ProgressSink = (progress: number, etaSeconds: number, text?: string) => Promise<unknown>;

/**
 * Turns a token stream into bounded-rate status writes: at most one write per `intervalMs`, and
 * never two in flight, so a fast model costs a few Redis writes a second, not one per token. The
 * reply so far goes with the write that is made; the text of an update that writes nothing is dropped.
 */
export class ProgressReporter {
  private lastWriteMs = Number.NEGATIVE_INFINITY;
  private inFlight: Promise<unknown> | null = null;

  constructor(
    private readonly estimator: ProgressEstimator,
    private readonly sink: ProgressSink,
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The first write waits a whole interval, as later ones do (a job nobody watches while it runs: one
   * that ends sooner writes no progress at all, only its end).
   */
  deferFirstWrite(): void {
    this.lastWriteMs = this.now();
  }

  onTokens(tokens: number, text?: string): void {
    const now = this.now();
    if (this.inFlight || now - this.lastWriteMs < this.intervalMs) return;
    this.lastWriteMs = now;
    const { progress, etaSeconds } = this.estimator.estimate(tokens, now);
    this.inFlight = this.sink(progress, etaSeconds, text)
      .catch(() => undefined) // a lost progress write is harmless; the next one carries the news
      .finally(() => {
        this.inFlight = null;
      });
  }

  /** Waits for a write in flight so a completion written next cannot be overtaken by it. */
  async settle(): Promise<void> {
    await this.inFlight;
  }
}
