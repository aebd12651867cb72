const MAX_UPSTREAM_MESSAGE_CHARS = 300;

export interface UpstreamErrorDetails {
  /** The upstream's HTTP status, when it answered with one. */
  status?: number;
  /** Another attempt may succeed (429, 5xx, network failure, silence); only tried before any token streamed. */
  retryable: boolean;
  /** How long the upstream asked us to wait (Retry-After), before bounding. */
  retryAfterMs?: number;
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

/** Removes the API key and any bearer token, then bounds the length (redacting first: a cut key would leak). */
export function redact(text: string, apiKey: string | undefined): string {
  let safe = apiKey ? text.split(apiKey).join("[redacted]") : text;
  safe = safe
    .replace(/(Bearer\s+)\S+/gi, "$1[redacted]")
    .replace(/\s+/g, " ")
    .trim();
  return safe.length > MAX_UPSTREAM_MESSAGE_CHARS ? `${safe.slice(0, MAX_UPSTREAM_MESSAGE_CHARS)}…` : safe;
}

/**
 * The human part of an upstream error body: `{error:{message}}` (OpenAI, vLLM, llama.cpp),
 * `{error:"..."}` (TGI, Ollama), `{message}` or `{detail}`; otherwise the body itself.
 */
export function upstreamMessage(body: string, apiKey: string | undefined): string {
  return redact(extractMessage(body) ?? body, apiKey) || "(empty body)";
}

function extractMessage(body: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const { error, message, detail } = parsed as Record<string, unknown>;
  const nested = typeof error === "object" && error !== null ? (error as Record<string, unknown>).message : error;
  const found = [nested, message, detail].find((candidate) => typeof candidate === "string");
  return found as string | undefined;
}

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** Reads a failed response into an error; the body is read best-effort (it may never come). */
export async function errorFromResponse(response: Response, apiKey: string | undefined): Promise<OpenAiCompatibleUpstreamError> {
  const body = await response.text().catch(() => "");
  const message = `Upstream returned HTTP ${response.status}: ${upstreamMessage(body, apiKey)}`;
  return new OpenAiCompatibleUpstreamError(message, {
    status: response.status,
    retryable: isRetryableStatus(response.status),
    retryAfterMs: parseRetryAfterMs(response.headers),
  });
}

/** A fetch or body read that failed below HTTP: refused, reset, or cut off by our idle timeout. */
export function transportError(error: unknown, timedOutAfterMs: number | undefined, apiKey: string | undefined): OpenAiCompatibleUpstreamError {
  if (timedOutAfterMs !== undefined) {
    return new OpenAiCompatibleUpstreamError(`Upstream sent nothing for ${timedOutAfterMs} ms`, { retryable: true });
  }
  // undici reports "fetch failed" / "terminated" and keeps the reason (ECONNREFUSED...) in `cause`.
  const detail = messageOf(causeOf(error)) ?? messageOf(error) ?? String(error);
  return new OpenAiCompatibleUpstreamError(`Upstream request failed: ${redact(detail, apiKey)}`, { retryable: true });
}

// Duck-typed rather than `instanceof Error`: errors may come from another realm (jest's VM contexts).
function messageOf(value: unknown): string | undefined {
  const message = typeof value === "object" && value !== null ? (value as { message?: unknown }).message : undefined;
  return typeof message === "string" && message !== "" ? message : undefined;
}

function causeOf(value: unknown): unknown {
  return typeof value === "object" && value !== null ? (value as { cause?: unknown }).cause : undefined;
}

/** `retry-after-ms` (OpenAI), else `Retry-After` in seconds or as an HTTP date. */
export function parseRetryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const milliseconds = Number(headers.get("retry-after-ms") ?? Number.NaN);
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = headers.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export interface RetryPolicy {
  baseDelayMs: number;
  maxDelayMs: number;
}

/**
 * Wait before retry number `attempt + 1`: what the upstream asked for, else exponential backoff
 * with "equal jitter" (between half and all of base * 2^attempt); never more than maxDelayMs.
 */
export function retryDelayMs(attempt: number, retryAfterMs: number | undefined, policy: RetryPolicy, random: () => number = Math.random): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, policy.maxDelayMs);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
