export interface ProgressEstimate {
  /** 0..1, never decreasing, below 1 until the job completes. */
  progress: number;
  /** Seconds until the reply is expected. */
  etaSeconds: number;
}

/** Progress stays below 1 until the reply is stored: only completion says "done". */
const MAX_RUNNING_PROGRESS = 0.99;

/**
 * Progress and ETA of one generation from the tokens streamed so far. The expected length is an
 * estimate capped by max_tokens; when the reply outgrows it, the estimate moves up (never past the
 * cap) instead of progress sticking at the top. The rate is this job's own measured token rate.
 */
export class ProgressEstimator {
  private expectedTokens: number;
  private lastProgress = 0;

  constructor(
    expectedTokens: number,
    private readonly maxTokens: number,
    private readonly startedAtMs: number,
    private readonly fallbackTokensPerSecond: number,
  ) {
    this.expectedTokens = Math.max(1, Math.min(expectedTokens, maxTokens));
  }

  estimate(tokens: number, nowMs: number): ProgressEstimate {
    if (tokens >= this.expectedTokens) this.expectedTokens = Math.min(this.maxTokens, Math.ceil(tokens * 1.25) + 1);
    const fraction = Math.min(tokens / this.expectedTokens, MAX_RUNNING_PROGRESS);
    this.lastProgress = Math.max(this.lastProgress, fraction);
    const elapsedSeconds = Math.max((nowMs - this.startedAtMs) / 1000, 0.001);
    const rate = tokens > 0 ? tokens / elapsedSeconds : this.fallbackTokensPerSecond;
    const remaining = Math.max(this.expectedTokens - tokens, 0);
    return { progress: this.lastProgress, etaSeconds: remaining / rate };
  }
}
