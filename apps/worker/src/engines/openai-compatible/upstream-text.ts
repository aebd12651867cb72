const MAX_UPSTREAM_MESSAGE_CHARS = 300;

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
 * The human part of an upstream error body, redacted: `{error:{message}}` (OpenAI, vLLM, llama.cpp),
 * `{error:"..."}` (TGI, Ollama), `{message}`, `{detail}` (FastAPI servers; a validation error's
 * list as JSON); otherwise the body itself.
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
  if (typeof found === "string") return found;
  return detail === undefined ? undefined : JSON.stringify(detail);
}

/** 408, 429 and 5xx may pass; any other 4xx is this request's fault and will fail again. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * What a failure below HTTP says at its root: the SDK reports "Connection error.", undici "fetch
 * failed" or "terminated", and the reason (ECONNREFUSED, "other side closed") sits in a `cause`.
 */
export function failureDetail(error: unknown): string {
  let detail: string | undefined;
  let current = error;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth += 1) {
    detail = messageOf(current) ?? detail;
    current = (current as { cause?: unknown }).cause;
  }
  return detail ?? String(error);
}

// Duck-typed rather than `instanceof Error`: errors may come from another realm (jest's VM contexts).
function messageOf(value: object): string | undefined {
  const message = (value as { message?: unknown }).message;
  return typeof message === "string" && message !== "" ? message : undefined;
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
