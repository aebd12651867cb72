import type { StatusRecord } from "./types.js";

/**
 * Codes the client adds to the API's own (`INVALID_PARAMETER`, `RATE_LIMITED`, `NOT_FOUND`, ...):
 * - `REQUEST_FAILED`: the HTTP calls went well but the request ended `error` (`details.record`, `details.id`);
 * - `NETWORK_ERROR`: no answer after every retry (`cause` is the last failure);
 * - `INVALID_RESPONSE`: an answer that is not what the API sends (e.g. a proxy's 502 page; `status` says which).
 */
export type ClientErrorCode = "REQUEST_FAILED" | "NETWORK_ERROR" | "INVALID_RESPONSE";

export interface ChorusErrorInit {
  /**
   * The HTTP status of the answer; undefined when there was none (network) or it was not an HTTP error
   * (REQUEST_FAILED).
   */
  status?: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
  /** Seconds the server asked to wait (`Retry-After`). */
  retryAfter?: number;
  cause?: unknown;
}

/** The one error the client throws (an abort rejects with the signal's reason instead). */
export class ChorusError extends Error {
  readonly status: number | undefined;
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;
  readonly retryAfter: number | undefined;

  constructor(init: ChorusErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "ChorusError";
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.retryAfter = init.retryAfter;
  }

  /** True when the request was accepted and ended `error` (not an HTTP error). */
  get requestFailed(): boolean {
    return this.code === "REQUEST_FAILED";
  }

  static requestFailed(id: string, record: StatusRecord): ChorusError {
    return new ChorusError({
      code: "REQUEST_FAILED",
      message: `request ${id} failed: ${record.error ?? "unknown error"}`,
      details: { id, record },
    });
  }
}

interface Envelope {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

function isEnvelope(body: unknown): body is Envelope {
  if (typeof body !== "object" || body === null || !("error" in body)) return false;
  const error = body.error;
  return typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string";
}

/** The ChorusError for a non-2xx answer: the API's envelope when there is one, else a description of what came. */
export async function errorFromResponse(response: Response, retryAfter: number | undefined): Promise<ChorusError> {
  const text = await response.text().catch(() => "");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (isEnvelope(body)) return new ChorusError({ status: response.status, retryAfter, ...body.error });
  const message = `HTTP ${response.status} without the API's error envelope${text ? `: ${text.slice(0, 200)}` : ""}`;
  return new ChorusError({ status: response.status, code: "INVALID_RESPONSE", message, retryAfter });
}
