import { describe, expect, it } from "@jest/globals";
import { ApiError } from "../errors.js";
import { toOpenAiError } from "./openai-errors.js";

describe("toOpenAiError", () => {
  it("when a parameter is invalid, then the envelope names it in param", () => {
    const error = ApiError.invalidParameter("temperature", "number", "temperature must be <= 2");
    expect(toOpenAiError(error)).toEqual({
      error: {
        message: "temperature must be <= 2",
        type: "invalid_request_error",
        param: "temperature",
        code: "invalid_parameter",
      },
    });
  });

  it.each([
    [new ApiError("UNAUTHORIZED", "the API key is not valid"), "invalid_request_error", "invalid_api_key", null],
    [new ApiError("FORBIDDEN", "no scope"), "permission_error", "forbidden", null],
    [
      new ApiError("NOT_FOUND", "no such model", { parameter: "model" }),
      "invalid_request_error",
      "model_not_found",
      "model",
    ],
    [new ApiError("NOT_FOUND", "no endpoint"), "invalid_request_error", "not_found", null],
    [new ApiError("RATE_LIMITED", "slow down"), "rate_limit_error", "rate_limit_exceeded", null],
    [new ApiError("BUDGET_EXCEEDED", "spent"), "insufficient_quota", "insufficient_quota", null],
    [new ApiError("SERVICE_UNAVAILABLE", "later"), "server_error", "service_unavailable", null],
    [new ApiError("INTERNAL_ERROR", "oops", { errorId: "x" }), "server_error", "internal_error", null],
    [
      ApiError.invalidParameter("body", "object", "a JSON body is required"),
      "invalid_request_error",
      "invalid_parameter",
      null,
    ],
  ])("when the native error is %p, then type %s, code %s, param %p", (error, type, code, param) => {
    expect(toOpenAiError(error)).toEqual({ error: { message: error.message, type, param, code } });
  });
});
