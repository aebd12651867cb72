import { APIConnectionError, APIError } from "openai";
import { UpstreamStatusError } from "../openai-compatible/upstream-client.js";
import {
  failureDetail,
  isRetryableStatus,
  parseRetryAfterMs,
  redact,
  upstreamMessage,
} from "../openai-compatible/upstream-text.js";

export interface UpstreamErrorDetails {
  /** The upstream's HTTP status, when it answered with one. */
  status?: number | undefined;
  /** Another attempt may succeed (429, 5xx, network failure, silence); only tried before any token streamed. */
  retryable: boolean;
  /** How long the upstream asked us to wait (Retry-After), before bounding. */
  retryAfterMs?: number | undefined;
}

/** What went wrong upstream, in words safe to show a client: secrets are redacted. */
export class OpenAiCompatibleUpstreamError extends Error {
  override readonly name = "OpenAiCompatibleUpstreamError";
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(message: string, details: UpstreamErrorDetails) {
    super(message);
    this.status = details.status;
    this.retryable = details.retryable;
    this.retryAfterMs = details.retryAfterMs;
  }

  withNote(note: string): OpenAiCompatibleUpstreamError {
    return new OpenAiCompatibleUpstreamError(`${this.message} (${note})`, this);
  }
}

/**
 * Turns whatever the `openai` client threw into our error: an HTTP status with the upstream's own
 * words, an error event in the stream, a stream event that is not JSON, or a failure below HTTP
 * (refused, reset, or cut off by our idle timeout, `timedOutAfterMs`).
 */
export function upstreamError(
  error: unknown,
  timedOutAfterMs: number | undefined,
  apiKey: string | undefined,
): OpenAiCompatibleUpstreamError {
  if (error instanceof OpenAiCompatibleUpstreamError) return error;
  if (timedOutAfterMs !== undefined) {
    return new OpenAiCompatibleUpstreamError(`Upstream sent nothing for ${timedOutAfterMs} ms`, { retryable: true });
  }
  if (error instanceof UpstreamStatusError) {
    const message = `Upstream returned HTTP ${error.status}: ${upstreamMessage(error.body, apiKey)}`;
    return new OpenAiCompatibleUpstreamError(message, {
      status: error.status,
      retryable: isRetryableStatus(error.status),
      retryAfterMs: parseRetryAfterMs(error.headers),
    });
  }
  if (error instanceof APIError && !(error instanceof APIConnectionError)) {
    // The client throws a stream event carrying `error` as an APIError without a status.
    const message = upstreamMessage(JSON.stringify({ error: error.error as unknown }), apiKey);
    return new OpenAiCompatibleUpstreamError(`Upstream reported an error mid-stream: ${message}`, { retryable: false });
  }
  if (error instanceof SyntaxError)
    return new OpenAiCompatibleUpstreamError("Upstream sent a stream event that is not JSON", { retryable: false });
  return new OpenAiCompatibleUpstreamError(`Upstream request failed: ${redact(failureDetail(error), apiKey)}`, {
    retryable: true,
  });
}

export interface RetryPolicy {
  baseDelayMs: number;
  maxDelayMs: number;
}

/**
 * Wait before retry number `attempt + 1`: what the upstream asked for, else exponential backoff
 * with "equal jitter" (between half and all of base * 2^attempt); never more than maxDelayMs.
 */
export function retryDelayMs(
  attempt: number,
  retryAfterMs: number | undefined,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, policy.maxDelayMs);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
