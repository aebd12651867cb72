import { ChorusError, errorFromResponse } from "./errors.js";
import { isRetryableStatus, parseRetryAfter, retryDelayMs, sleep, type RetryPolicy } from "./retry.js";

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  fetch: FetchLike;
  retry: RetryPolicy;
  /** For tests: what waits between attempts, and the jitter's source. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

export interface Call {
  method?: "GET" | "POST" | "DELETE";
  /** Path and query, from the base URL on (`/api/voices`). */
  path: string;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  signal?: AbortSignal;
}

/** Why an attempt did not give a usable answer, and whether another may. */
interface Failure {
  error: ChorusError;
  retryable: boolean;
}

/**
 * Sends calls with the key, retrying network errors, 429 and 5xx with backoff that honours
 * `Retry-After`. Every call it makes must be safe to repeat: the client gives each submit an
 * Idempotency-Key that all its attempts share.
 */
export class Transport {
  private readonly wait: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(private readonly options: TransportOptions) {
    this.wait = options.sleep ?? sleep;
  }

  /** The first 2xx answer, its body left unread (a stream). */
  send(call: Call): Promise<Response> {
    return this.request(call, (response) => Promise.resolve(response));
  }

  /** The body of the first 2xx answer, parsed as JSON. */
  json<T>(call: Call): Promise<T> {
    return this.request(call, parseJson<T>);
  }

  /**
   * `read` applied to the first 2xx answer. A ChorusError when attempts run out or the error is not
   * worth retrying (a ChorusError thrown by `read` is final; a body cut short is retried); the
   * signal's reason on abort.
   */
  async request<T>(call: Call, read: (response: Response) => Promise<T>): Promise<T> {
    const { retry } = this.options;
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.attempt(call, read);
      if (!isFailure(outcome)) return outcome.value;
      const retryAfter = outcome.error.retryAfter;
      const waitable = retryAfter === undefined || retryAfter <= retry.maxRetryAfterSeconds;
      if (!outcome.retryable || !waitable || attempt >= retry.maxRetries) throw outcome.error;
      await this.wait(retryDelayMs(attempt, retryAfter, retry, this.options.random), call.signal);
    }
  }

  private async attempt<T>(call: Call, read: (response: Response) => Promise<T>): Promise<{ value: T } | Failure> {
    call.signal?.throwIfAborted();
    try {
      const response = await this.options.fetch(this.options.baseUrl + call.path, this.init(call));
      if (!response.ok) {
        const retryAfter = parseRetryAfter(response.headers.get("retry-after"));
        return { error: await errorFromResponse(response, retryAfter), retryable: isRetryableStatus(response.status) };
      }
      return { value: await read(response) };
    } catch (cause) {
      if (call.signal?.aborted) throw call.signal.reason;
      if (cause instanceof ChorusError) throw cause;
      return {
        error: new ChorusError({
          code: "NETWORK_ERROR",
          message: `no answer from ${this.options.baseUrl}: ${String(cause)}`,
          cause,
        }),
        retryable: true,
      };
    }
  }

  private init(call: Call): RequestInit {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.options.apiKey}`,
      accept: "application/json",
      ...call.headers,
    };
    const init: RequestInit = { method: call.method ?? "GET", headers, signal: call.signal };
    if (call.body !== undefined) {
      headers["content-type"] = "application/json";
      init.body = JSON.stringify(call.body);
    }
    return init;
  }
}

function isFailure<T>(outcome: { value: T } | Failure): outcome is Failure {
  return "error" in outcome;
}

export async function parseJson<T>(response: Response): Promise<T> {
  const text = await response.text();
  try {
    return JSON.parse(text) as T;
  } catch (cause) {
    throw new ChorusError({
      status: response.status,
      code: "INVALID_RESPONSE",
      message: `expected JSON, got: ${text.slice(0, 200)}`,
      cause,
    });
  }
}
