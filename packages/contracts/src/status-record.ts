/** The three states of the spec; any other value is unknown to the interface. */
export const JOB_STATES = ["processing", "completed", "error"] as const;
export type JobState = (typeof JOB_STATES)[number];

/**
 * Why a generation ended, as the worker that ran it records it: `stop` (the model ended its reply, or
 * a stop sequence did), `length` (the token limit it ran with, or the end of the context), `cancelled`.
 */
export const FINISH_REASONS = ["stop", "length", "cancelled"] as const;
export type FinishReason = (typeof FINISH_REASONS)[number];

/**
 * What kind of failure an `error` record is, as whoever wrote it knows: `cancelled`; `timeout` (the
 * worker's time limit); `context_length_exceeded` and `invalid_request` (the request cannot run as
 * sent: sending it again fails again); `generation_failed` (the engine failed on every attempt);
 * `lost` (the job vanished from the queue); `not_queued` (its submit failed; no client holds the id);
 * `queue_timeout` (no worker started it within the client's `maxQueueMs`).
 */
export const FAILURE_CODES = [
  "cancelled",
  "timeout",
  "context_length_exceeded",
  "invalid_request",
  "generation_failed",
  "lost",
  "not_queued",
  "queue_timeout",
] as const;
export type FailureCode = (typeof FAILURE_CODES)[number];

/** What GET /api/v2/status/{id} and GET /api/status/{task_id} return. */
export interface StatusRecord {
  status: JobState;
  /** When `completed`: the generated text. */
  reply?: string;
  /** When `completed`: tokens generated for the reply (prompt tokens excluded). */
  tokens?: number;
  /** When `completed`: tokens of the prompt the model read. */
  promptTokens?: number;
  /** When `completed`: prompt tokens taken from the worker's cache instead of being read again. */
  cachedTokens?: number;
  /** While `processing` and generating: the reply so far, cleaned up as the final `reply` will be. */
  partialReply?: string;
  /** When `error`: what went wrong. */
  error?: string;
  /** When `error`: what kind of failure it is (FAILURE_CODES), for clients and doors to branch on. */
  errorCode?: FailureCode;
  /** While `processing`: 0..1, never decreasing. */
  progress?: number;
  /** While waiting in the queue: jobs ahead of this one (0: next to start). */
  queuePosition?: number;
  /** While `processing`: seconds until the reply is expected. */
  estimatedTimeRemaining?: number;
  /** When `completed`: `stop` or `length`; when cancelled: `cancelled`. */
  finishReason?: FinishReason;
  /** When `completed`: the most tokens the reply could have had (the request's, else the model's default). */
  maxTokens?: number;
  /** When `completed`: seconds the worker spent on the job (a number, millisecond precision). */
  processingTime?: number;
  /** When `completed`: oldest messages left out because the conversation did not fit the model's context. */
  droppedMessages?: number;
  /** When `completed` and `speak` was asked for: where the owner GETs the spoken reply. */
  audioUrl?: string;
  /** With `audioUrl`, when the reply was longer than the speech bound: the audio speaks only its start. */
  audioTruncated?: true;
  /** When `completed` and `speak` was asked for but the reply could not be spoken: why. */
  audioError?: string;
}

/** The path of a request's spoken reply (the record's `audioUrl`). */
export function replyAudioPath(requestId: string): string {
  return `/api/v2/status/${requestId}/audio`;
}

/** The `error` of a record whose owner cancelled it (DELETE /api/v2/status/{id}). */
export const CANCELLED_ERROR = "cancelled";

/** The `error` of a record no worker started within its `maxQueueMs` (errorCode `queue_timeout`). */
export const QUEUE_TIMEOUT_ERROR = "queue deadline passed: no worker started the request within its maxQueueMs";
