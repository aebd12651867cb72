import { ApiError, type StatusRecord } from "@chorus/contracts";

/**
 * A failed record as /v1 answers it, from the kind of failure its writer recorded (`errorCode`):
 * the status OpenAI's clients expect, and `x-should-retry: false` where the same request would fail
 * the same way (the SDKs otherwise retry a 5xx or 409 twice, paying the failure three times).
 */
export function recordFailure(record: StatusRecord | undefined): ApiError {
  if (!record) return new ApiError("INTERNAL_ERROR", "the completion's record expired before it was read");
  const message = `the completion failed: ${record.error ?? "unknown error"}`;
  switch (record.errorCode) {
    case "timeout":
      return new ApiError("TIME_LIMIT_EXCEEDED", message, undefined, undefined, false);
    case "cancelled":
      return new ApiError("CONFLICT", "the request was cancelled before it completed", undefined, undefined, false);
    case "context_length_exceeded":
      // OpenAI's own code for it, which clients look for; the message names the context's size.
      return new ApiError(
        "INVALID_PARAMETER",
        record.error ?? "the conversation does not fit the model's context",
        { parameter: "messages", openai_code: "context_length_exceeded" },
        undefined,
        false,
      );
    case "invalid_request":
      return new ApiError("INVALID_PARAMETER", message, { parameter: "messages" }, undefined, false);
    case "queue_timeout":
      // The client's own deadline (Prefer: wait-queue): sending it again at once would likely wait as long.
      return new ApiError("QUEUE_TIMEOUT", message, undefined, undefined, false);
    case "generation_failed":
      return new ApiError("INTERNAL_ERROR", message, undefined, undefined, false);
    case "lost":
    case "not_queued":
    case undefined:
      return new ApiError("INTERNAL_ERROR", message);
  }
}
