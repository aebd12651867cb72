export interface ProgressEstimate {
  /** 0..1, never decreasing, below 1 until the job completes. */
  progress: number;
  /** Seconds until the reply is expected. */
  etaSeconds: number;
}

/** Progress stays below 1 until the reply is stored: only completion says "done". */
const MAX_RUNNING_PROGRESS = 0.99;
/**
 * Progress when the reply reaches its expected length while max_tokens allows more: the rest, up
 * to MAX_RUNNING_PROGRESS, is kept for a reply that runs on, so that progress can still rise.
 */
const AT_EXPECTED_LENGTH = 0.9;
/**
 * Below this share of the expected length, progress is that share; above it, it rises more slowly up to
 * AT_EXPECTED_LENGTH.
 */
const KNEE = 0.8;

/**
 * Progress and ETA of one generation from the tokens streamed so far, at this job's own measured
 * token rate. Up to the expected length (an estimate, capped by max_tokens) progress is the share
 * of it streamed, slowing near its end. A reply that runs past it may run to max_tokens: progress
 * then rises slowly from AT_EXPECTED_LENGTH to MAX_RUNNING_PROGRESS at max_tokens, and the ETA is
 * the time to max_tokens (an upper bound), instead of progress sitting at its top with an ETA of a
 * few seconds that is renewed again and again.
 */
export class ProgressEstimator {
  private readonly expectedTokens: number;
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
    const { progress, remaining } =
      tokens < this.expectedTokens ? this.withinExpected(tokens) : this.pastExpected(tokens);
    this.lastProgress = Math.max(this.lastProgress, progress);
    const elapsedSeconds = Math.max((nowMs - this.startedAtMs) / 1000, 0.001);
    const rate = tokens > 0 ? tokens / elapsedSeconds : this.fallbackTokensPerSecond;
    return { progress: this.lastProgress, etaSeconds: remaining / rate };
  }

  private withinExpected(tokens: number): { progress: number; remaining: number } {
    const share = Math.max(tokens, 0) / this.expectedTokens;
    const top = this.expectedTokens < this.maxTokens ? AT_EXPECTED_LENGTH : MAX_RUNNING_PROGRESS;
    const progress = share <= KNEE ? share : KNEE + ((top - KNEE) * (share - KNEE)) / (1 - KNEE);
    return { progress, remaining: this.expectedTokens - Math.max(tokens, 0) };
  }

  private pastExpected(tokens: number): { progress: number; remaining: number } {
    const room = this.maxTokens - this.expectedTokens;
    if (room <= 0 || tokens >= this.maxTokens) return { progress: MAX_RUNNING_PROGRESS, remaining: 0 };
    const progress =
      AT_EXPECTED_LENGTH + ((MAX_RUNNING_PROGRESS - AT_EXPECTED_LENGTH) * (tokens - this.expectedTokens)) / room;
    return { progress, remaining: this.maxTokens - tokens };
  }
}
