import { SpeechEngineError } from "./speech-engine.js";

const MAX_MESSAGE_CHARS = 300;

/** Removes the API key and any bearer token, then bounds the length (redacting first: a cut key would leak). */
export function redact(text: string, apiKey: string | undefined): string {
  let safe = apiKey ? text.split(apiKey).join("[redacted]") : text;
  safe = safe
    .replace(/(Bearer\s+)\S+/gi, "$1[redacted]")
    .replace(/\s+/g, " ")
    .trim();
  return safe.length > MAX_MESSAGE_CHARS ? `${safe.slice(0, MAX_MESSAGE_CHARS)}…` : safe;
}

/** The human part of an error body: `{error:{message}}`, `{error:"..."}`, `{detail}` (FastAPI servers), or the body. */
function serverMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as Record<string, unknown> | null;
    const error = parsed?.error;
    const candidates = [typeof error === "object" && error !== null ? (error as Record<string, unknown>).message : error, parsed?.message, parsed?.detail];
    const found = candidates.find((candidate) => typeof candidate === "string");
    if (typeof found === "string") return found;
    if (parsed?.detail !== undefined) return JSON.stringify(parsed.detail); // FastAPI validation errors: a list
  } catch {
    // not JSON: the body itself
  }
  return body;
}

/** 408, 429 and 5xx may pass; any other 4xx is this request's fault and will fail again. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

export async function errorFromResponse(response: Response, server: string, apiKey: string | undefined): Promise<SpeechEngineError> {
  const body = await response.text().catch(() => "");
  const detail = redact(serverMessage(body), apiKey) || "(empty body)";
  const retryable = isRetryableStatus(response.status);
  const code = response.status === 429 || response.status === 503 ? "UNAVAILABLE" : "SYNTHESIS_FAILED";
  return new SpeechEngineError(code, `speech server ${server} answered HTTP ${response.status}: ${detail}`, retryable);
}

/** A failure below HTTP: refused, reset, or our timeout. */
export function transportError(error: unknown, server: string, timeoutMs: number | undefined, apiKey: string | undefined): SpeechEngineError {
  if (timeoutMs !== undefined) return new SpeechEngineError("UNAVAILABLE", `speech server ${server} did not answer within ${timeoutMs} ms`, true);
  // undici says "fetch failed" and keeps the reason (ECONNREFUSED...) in `cause`.
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
  const detail = cause?.message ?? (error instanceof Error ? error.message : String(error));
  return new SpeechEngineError("UNAVAILABLE", `could not reach speech server ${server}: ${redact(detail, apiKey)}`, true);
}
