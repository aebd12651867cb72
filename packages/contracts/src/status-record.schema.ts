import { SPEECH_LIMITS } from "./speech/speech-request.js";
import { toolCallsRecordSchema } from "./text/tools.js";
import { FAILURE_CODES, FINISH_REASONS, JOB_STATES, type StatusRecord } from "./status-record.js";

const COUNT = { type: "integer", minimum: 0 } as const;
const SECONDS = { type: "number", minimum: 0 } as const;
/** A spoken reply is bounded as a speech request's `text` is. */
const BOUND = SPEECH_LIMITS.textMaxChars;

/**
 * Every field of StatusRecord, described. Typed against the interface so a field added to the
 * record without a description here fails to compile (the OpenAPI document is built from this).
 */
const recordProperties = {
  status: {
    type: "string",
    enum: [...JOB_STATES],
    description:
      "`processing` until the request ends `completed` or `error`; any other value is unknown to the interface.",
  },
  reply: { type: "string", description: "When `completed`: the generated text, trimmed." },
  toolCalls: toolCallsRecordSchema,
  tokens: { ...COUNT, description: "When `completed`: tokens generated for the reply (prompt excluded)." },
  promptTokens: {
    ...COUNT,
    description: "When `completed`: tokens of the prompt the model read, chat template included.",
  },
  cachedTokens: {
    ...COUNT,
    description:
      "When `completed`: of `promptTokens`, those taken from the worker's prompt cache instead of being read again.",
  },
  partialReply: {
    type: "string",
    description:
      "While `processing` and generating: the reply so far. Absent while queued and in final records (which carry `reply`).",
  },
  error: {
    type: "string",
    description:
      "When `error`: `cancelled`, `generation failed: <reason>` or `lost: the job disappeared from the queue`.",
  },
  errorCode: {
    type: "string",
    enum: [...FAILURE_CODES],
    description:
      "When `error`, an extension: the kind of failure. `cancelled`; `timeout` (the worker's time limit, `JOB_TIME_LIMIT_MS`); `context_length_exceeded` and `invalid_request` (the request cannot run as sent: sending it again fails the same way); `generation_failed` (the engine failed on every attempt); `lost` (the job vanished from the queue). Absent on records written by an earlier release.",
  },
  progress: {
    type: "number",
    minimum: 0,
    maximum: 1,
    description:
      "While `processing`: 0 while queued, then grows as tokens are generated; never decreases, below 1 until `completed`.",
  },
  queuePosition: {
    ...COUNT,
    description: "While queued: jobs ahead of this one (0: next to start); absent once a worker has started it.",
  },
  estimatedTimeRemaining: {
    ...SECONDS,
    description:
      "While `processing`: seconds until the reply is expected (absent while queued until a job has completed).",
  },
  finishReason: {
    type: "string",
    enum: [...FINISH_REASONS],
    description:
      "Why generation ended, as the worker that ran it records it. When `completed`: `length` when the reply reached `maxTokens` (or the model's context was full), else `stop` (the model ended its reply, or a stop sequence did). When cancelled (`error: cancelled`): `cancelled`.",
  },
  maxTokens: {
    type: "integer",
    minimum: 1,
    description:
      "When `completed`: the token limit the reply was generated with (the request's `max_tokens`, else the model's configured default).",
  },
  processingTime: {
    ...SECONDS,
    description: "When `completed`: seconds the worker spent on the job (millisecond precision).",
  },
  droppedMessages: {
    ...COUNT,
    description: "When `completed`: oldest messages left out because the conversation did not fit the model's context.",
  },
  audioUrl: {
    type: "string",
    description:
      "When `completed` and the submit asked for `speak`: the path (`/api/v2/status/{id}/audio`) where the owner's key GETs the spoken reply; the audio is kept SPOKEN_REPLY_TTL_SECONDS (1 h by default, never longer than the record), then the path answers 404.",
  },
  audioTruncated: {
    type: "boolean",
    enum: [true],
    description: `With \`audioUrl\`, only when the reply is longer than ${BOUND} characters: the audio speaks the reply's start, up to the last sentence end (else white space) within ${BOUND} characters. Absent: the audio speaks the whole reply.`,
  },
  audioError: {
    type: "string",
    description:
      "When `completed` and the submit asked for `speak` but the reply could not be spoken: why. The text reply is there as usual.",
  },
} as const satisfies { [K in keyof Required<StatusRecord>]: object };

/**
 * JSON Schema of the status record (GET /api/v2/status/{id}, GET /api/status/{task_id}). Documentation
 * only: the gateway writes records, it never validates them.
 */
export const statusRecordSchema = {
  type: "object",
  required: ["status"],
  properties: recordProperties,
} as const;
