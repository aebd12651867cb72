import { ApiError, ERROR_CODES, REQUEST_LIMITS, validateGenerationRequest, type ErrorCode } from "@chorus/contracts";
import type {
  HeaderObject,
  ParameterObject,
  ReferenceObject,
  ResponseObject,
  ResponsesObject,
} from "openapi3-ts/oas31";
import { IDEMPOTENCY_KEY_PATTERN } from "../services/idempotency.js";
import { MAX_WAIT_SECONDS } from "../routes/prefer-wait.js";
import { schemaRef } from "./schemas.js";

type Responses = ResponsesObject;
type Headers = Record<string, HeaderObject | ReferenceObject>;

const integer = { type: "integer", minimum: 0 } as const;

export const HEADERS = {
  "X-RateLimit-Limit": {
    description:
      "Requests allowed in the current one-minute window (per API key and operation; on a 401, per client address).",
    schema: integer,
  },
  "X-RateLimit-Remaining": { description: "Requests left in the current window.", schema: integer },
  "X-RateLimit-Reset": { description: "When the window resets, in Unix epoch seconds.", schema: integer },
  "Retry-After": { description: "Seconds to wait before retrying.", schema: integer },
  "Preference-Applied": {
    description: "`wait=N` when the `Prefer: wait` preference was honoured (N as applied, at most 60).",
    schema: { type: "string" },
    example: "wait=30",
  },
  Allow: { description: "The methods the path takes.", schema: { type: "string" }, example: "POST" },
  "X-Budget-Tokens-Remaining": {
    description:
      "Only where a token budget (`tokens_day`, `tokens_month`) applies to the key: tokens left once this request's most (prompt estimate + max tokens) is held, the least over the day's and the month's budget. See docs/usage.md.",
    schema: integer,
  },
  "X-Budget-Audio-Seconds-Remaining": {
    description:
      "Only where an audio budget (`audio_seconds_day`, `audio_seconds_month`) applies to the key: seconds of speech left once this request's estimate is held, the least over the day's and the month's budget.",
    schema: integer,
  },
} satisfies Record<string, HeaderObject>;

export function headerRefs(...names: (keyof typeof HEADERS)[]): Headers {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

/** What an accepted request carries where its key has usage budgets. */
export const budgetHeaders = (): Headers => headerRefs("X-Budget-Tokens-Remaining", "X-Budget-Audio-Seconds-Remaining");

/** What every response of a rate-limited operation carries. */
export const rateLimitHeaders = (): Headers =>
  headerRefs("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset");

export const PARAMETERS = {
  Prefer: {
    name: "Prefer",
    in: "header",
    description: `RFC 7240 \`wait=N\` (whole seconds; more than ${MAX_WAIT_SECONDS} is applied as ${MAX_WAIT_SECONDS}): answer once the request has finished, or after N seconds. Other or malformed preferences are ignored.`,
    schema: { type: "string" },
    example: "wait=30",
  },
  PreferSubmit: {
    name: "Prefer",
    in: "header",
    description: `RFC 7240 preferences of a text submit. \`wait=N\` (whole seconds; more than ${MAX_WAIT_SECONDS} is applied as ${MAX_WAIT_SECONDS}): answer once the request has finished, or after N seconds. \`wait-queue=S\` (seconds, ${REQUEST_LIMITS.queueDeadlineMs.min / 1000} to ${REQUEST_LIMITS.queueDeadlineMs.max / 1000}, Chorus's own, as the body's \`maxQueueMs\`, which wins): if no worker has started the request S seconds after it was accepted it ends as \`error\` with \`errorCode: queue_timeout\`, and when the queue's estimate already says so the submit is refused (429 QUEUE_TIMEOUT). A \`wait-queue\` out of bounds is 400; other or malformed preferences are ignored.`,
    schema: { type: "string" },
    example: "wait=30, wait-queue=5",
  },
  IdempotencyKey: {
    name: "Idempotency-Key",
    in: "header",
    description:
      "Makes a retry safe: the same key with the same body answers the first request's result (no second job); with another body, 409 CONFLICT. Kept per API key.",
    schema: { type: "string", pattern: IDEMPOTENCY_KEY_PATTERN.source },
    example: "3f0c9a52-6a7e-4c61-9d43-0d2b1e0f7a11",
  },
  PreferWholeAudio: {
    name: "Prefer",
    in: "header",
    description:
      "RFC 7240 `stream=false`: the audio whole, once it is made, with `Content-Length` and `X-Audio-Duration` (answered with `Preference-Applied: stream=false`). Without it the audio streams as it is synthesized: chunked, no `Content-Length`, `X-Audio-Duration` as a trailer; a failure after the first byte closes the connection without the last chunk.",
    schema: { type: "string" },
    example: "stream=false",
  },
  LastEventId: {
    name: "Last-Event-ID",
    in: "header",
    description:
      "With `Accept: text/event-stream`, on reconnecting: the `id` of the last event received. When the record has not changed since (and is not queued), the stream skips the first snapshot.",
    schema: { type: "string" },
  },
} satisfies Record<string, ParameterObject>;

export function parameterRef(name: keyof typeof PARAMETERS): ReferenceObject {
  return { $ref: `#/components/parameters/${name}` };
}

/** When each code is answered, and an example message. Typed by ErrorCode: a new code must be described. */
const ERRORS: Record<ErrorCode, { when: string; message: string }> = {
  INVALID_PARAMETER: {
    when: "a missing or invalid field, header or query parameter (`details` names it and lists every problem)",
    message: "(the validator's own)",
  },
  INVALID_JSON: { when: "the body is not valid JSON", message: "the request body is not valid JSON" },
  UNAUTHORIZED: {
    when: "no `Authorization: Bearer`, an unknown or a revoked key",
    message: "the API key is not valid",
  },
  FORBIDDEN: {
    when: "the key lacks the scope (`text:<model>` or `tts`)",
    message: "this API key has no access to model 'Witch' (scope text:Witch)",
  },
  NOT_FOUND: {
    when: "unknown model or path; unknown, expired or another key's request id",
    message: "no request with id 'b1d5…' for this API key (it may have expired)",
  },
  METHOD_NOT_ALLOWED: {
    when: "a known path with a method it does not take (see `Allow`)",
    message: "GET is not allowed on /api/text/default; allowed: POST",
  },
  CONFLICT: {
    when: "cancelling a finished request; an `Idempotency-Key` reused with another body",
    message: "this Idempotency-Key was already used with a different request body",
  },
  PAYLOAD_TOO_LARGE: { when: "a body over 1 MiB", message: "the request body is larger than 1048576 bytes" },
  UNSUPPORTED_MEDIA_TYPE: {
    when: "a body not sent as `application/json`",
    message: "send the body as JSON with 'Content-Type: application/json'",
  },
  BUDGET_EXCEEDED: {
    when: "a usage budget of the key (`tokens_day`, `tokens_month`, `audio_seconds_day`, `audio_seconds_month`) would be passed by this request's most (`details.budget` names it): `Retry-After` says when it resets (the next UTC midnight or month), with `x-should-retry: false`",
    message:
      "this API key's tokens_day budget is spent: 9900 of its 10000 tokens are used or held by requests not yet finished, and this request may use up to 350; it resets at 2026-01-02T00:00:00.000Z",
  },
  RATE_LIMITED: {
    when: "a budget is spent (per key and operation; failed authentications per address), or the key holds its cap of text requests in flight (`max in flight N`) or of open status streams and waits (`max streams N`): wait `Retry-After` seconds",
    message: "rate limit exceeded for status; retry after the time in Retry-After (seconds)",
  },
  QUEUE_TIMEOUT: {
    when: "a text request with a queue deadline (`maxQueueMs`, or `Prefer: wait-queue=<s>`) that the queue's estimate says would start after it: nothing is queued; `Retry-After` says when the queue should be short enough, and `x-should-retry: false` keeps the SDKs from waiting for you. On `/v1` also the answer of a request whose deadline passed before a worker started it",
    message:
      "the queue's estimate is that this request would start in about 12 s, after its maxQueueMs of 2000 ms: nothing was queued",
  },
  INTERNAL_ERROR: {
    when: "a bug (with a reference also logged), or a speech synthesis that failed",
    message: "internal error (reference 9b2f…)",
  },
  TIME_LIMIT_EXCEEDED: {
    when: "`/v1` only: the generation ran past the worker's time limit (`JOB_TIME_LIMIT_MS`); with `x-should-retry: false`, as the same request would fail the same way",
    message: "the completion failed: generation failed: generation exceeded the time limit of 300 s",
  },
  SERVICE_UNAVAILABLE: {
    when: "Redis unreachable, the text queue at capacity, the gateway at its cap of open streams and waits, speech off or not synthesized in time: retry with backoff after `Retry-After`",
    message: "the service is temporarily unavailable; retry with exponential backoff",
  },
};

/** A real validation answer for INVALID_PARAMETER, so its `details` cannot drift from what the gateway says. */
function invalidParameterExample(): ApiError {
  try {
    validateGenerationRequest("default", {
      messages: [{ role: "You", content: "Hi", index: 0 }],
      samplingParams: { temperature: 9 },
    });
  } catch (error) {
    if (error instanceof ApiError) return error;
  }
  throw new Error("the example body was accepted; pick one the schema refuses");
}

function exampleOf(code: ErrorCode): ApiError {
  if (code === "INVALID_PARAMETER") return invalidParameterExample();
  return new ApiError(code, ERRORS[code].message, code === "INTERNAL_ERROR" ? { errorId: "9b2f…" } : undefined);
}

const HEADERS_BY_STATUS: Partial<Record<number, Headers>> = {
  401: rateLimitHeaders(),
  405: headerRefs("Allow"),
  429: { ...rateLimitHeaders(), ...headerRefs("Retry-After") },
  503: headerRefs("Retry-After"),
};

const EXAMPLE_TIME = new Date("2026-01-01T12:00:00.000Z");

function errorResponse(status: number): ResponseObject {
  const codes = (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => ERROR_CODES[code] === status);
  const examples = Object.fromEntries(
    codes.map((code) => [code, { summary: code, value: exampleOf(code).toEnvelope(EXAMPLE_TIME) }]),
  );
  return {
    description: codes.map((code) => `\`${code}\`: ${ERRORS[code].when}.`).join(" "),
    headers: HEADERS_BY_STATUS[status],
    content: { "application/json": { schema: schemaRef("ErrorEnvelope"), examples } },
  };
}

/** One response per HTTP status the error codes use (`Error400`, `Error401`, ...), each with every code's example. */
export function errorResponses(): Record<string, ResponseObject> {
  const statuses = [...new Set(Object.values(ERROR_CODES))];
  return Object.fromEntries(statuses.map((status) => [`Error${status}`, errorResponse(status)]));
}

/** The error answers an operation may give, by HTTP status. */
export function errors(...statuses: number[]): Responses {
  return Object.fromEntries(
    statuses.map((status) => [String(status), { $ref: `#/components/responses/Error${status}` }]),
  );
}
