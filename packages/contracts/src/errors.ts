/** Stable error codes: clients may branch on them. Listed with their meaning in docs/api.md. */
export const ERROR_CODES = {
  INVALID_PARAMETER: 400,
  INVALID_JSON: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  QUEUE_TIMEOUT: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  TIME_LIMIT_EXCEEDED: 504,
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

export interface ErrorDetails {
  parameter?: string;
  expected_type?: string;
  [key: string]: unknown;
}

export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; details?: ErrorDetails };
  status: "error";
  timestamp: string;
}

/** The one error type the gateway throws; the error handler turns it into the envelope. */
export class ApiError extends Error {
  readonly httpStatus: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetails,
    /** Sent as Retry-After (seconds) with a 429 or 503; not part of the body. */
    readonly retryAfterSeconds?: number,
    /**
     * False for a failure that would repeat (the same request fails the same way): sent as
     * `x-should-retry: false`, which the official OpenAI SDKs obey instead of retrying a 5xx or 409.
     */
    readonly shouldRetry?: boolean,
  ) {
    super(message);
    this.name = "ApiError";
    this.httpStatus = ERROR_CODES[code];
  }

  /** One problem; `details.problems` lists it too, as it lists every problem of a body that has several. */
  static invalidParameter(parameter: string, expectedType: string, message: string): ApiError {
    return new ApiError("INVALID_PARAMETER", message, {
      parameter,
      expected_type: expectedType,
      problems: [{ parameter, expected_type: expectedType, message }],
    });
  }

  toEnvelope(now: Date = new Date()): ErrorEnvelope {
    const error = this.details
      ? { code: this.code, message: this.message, details: this.details }
      : { code: this.code, message: this.message };
    return { error, status: "error", timestamp: now.toISOString() };
  }
}
