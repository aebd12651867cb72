import type { ApiError, ErrorCode } from "../errors.js";
import type { OpenAiErrorEnvelope } from "./openai-shapes.js";

/**
 * OpenAI's `type` for each native code. The status stays the native one: the official SDKs turn
 * 400, 401, 403, 404, 409, 422 and 429 into their typed errors and retry 408, 409, 429 and 5xx.
 */
const TYPES: Record<ErrorCode, string> = {
  INVALID_PARAMETER: "invalid_request_error",
  INVALID_JSON: "invalid_request_error",
  UNAUTHORIZED: "invalid_request_error",
  FORBIDDEN: "permission_error",
  NOT_FOUND: "invalid_request_error",
  METHOD_NOT_ALLOWED: "invalid_request_error",
  CONFLICT: "invalid_request_error",
  PAYLOAD_TOO_LARGE: "invalid_request_error",
  UNSUPPORTED_MEDIA_TYPE: "invalid_request_error",
  RATE_LIMITED: "rate_limit_error",
  QUEUE_TIMEOUT: "rate_limit_error",
  // OpenAI's answer when an account's quota is spent, which its SDKs and clients recognise.
  BUDGET_EXCEEDED: "insufficient_quota",
  INTERNAL_ERROR: "server_error",
  SERVICE_UNAVAILABLE: "server_error",
  TIME_LIMIT_EXCEEDED: "server_error",
};

/** OpenAI's own codes where it has one clients look for (`details.openai_code`, or by kind); else the native code. */
function codeOf(error: ApiError, param: string | null): string {
  const own = error.details?.openai_code;
  if (typeof own === "string") return own;
  if (error.code === "UNAUTHORIZED") return "invalid_api_key";
  if (error.code === "RATE_LIMITED") return "rate_limit_exceeded";
  if (error.code === "BUDGET_EXCEEDED") return "insufficient_quota";
  if (error.code === "NOT_FOUND" && param === "model") return "model_not_found";
  return error.code.toLowerCase();
}

/** A native error in OpenAI's envelope: `param` is the field at fault (native `details.parameter`), or null. */
export function toOpenAiError(error: ApiError): OpenAiErrorEnvelope {
  const parameter = error.details?.parameter;
  const param = typeof parameter === "string" && parameter !== "body" ? parameter : null;
  const body = { message: error.message, type: TYPES[error.code], param, code: codeOf(error, param) };
  // A batch's input with bad lines lists them all (an extension of OpenAI's envelope: `errors`).
  const lines = error.details?.line_errors;
  return { error: Array.isArray(lines) ? { ...body, errors: lines } : body };
}
