import { describe, expect, it } from "@jest/globals";
import { toOpenAiError, type FailureCode } from "@chorus/contracts";
import { recordFailure } from "./record-failure.js";

const failed = (errorCode?: FailureCode) => ({ status: "error" as const, error: "generation failed: x", errorCode });

describe("recordFailure", () => {
  it.each([
    ["timeout", 504, false],
    ["cancelled", 409, false],
    ["context_length_exceeded", 400, false],
    ["invalid_request", 400, false],
    ["generation_failed", 500, false],
    ["lost", 500, undefined],
    [undefined, 500, undefined],
  ] as const)("when the record's failure is %s, then /v1 answers %i, x-should-retry %s", (code, status, retry) => {
    const error = recordFailure(failed(code));
    expect(error.httpStatus).toBe(status);
    expect(error.shouldRetry).toBe(retry);
  });

  it("when the context could not hold the conversation, then OpenAI's code context_length_exceeded names it, with the record's message", () => {
    const error = recordFailure({
      status: "error",
      error: "generation failed: this model's maximum context length is 1024 tokens; …",
      errorCode: "context_length_exceeded",
    });
    expect(toOpenAiError(error).error).toEqual({
      message: "generation failed: this model's maximum context length is 1024 tokens; …",
      type: "invalid_request_error",
      param: "messages",
      code: "context_length_exceeded",
    });
  });

  it("when the record expired before it was read, then it is a 500 that may be retried", () => {
    expect(recordFailure(undefined)).toMatchObject({ httpStatus: 500, shouldRetry: undefined });
  });
});
