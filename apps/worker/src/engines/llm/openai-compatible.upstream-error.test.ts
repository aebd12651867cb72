import { describe, expect, it } from "@jest/globals";
import { APIError } from "openai";
import { OpenAiCompatibleUpstreamError, retryDelayMs, upstreamError } from "./openai-compatible.upstream-error.js";

const POLICY = { baseDelayMs: 100, maxDelayMs: 1_000 };

describe("retryDelayMs", () => {
  it.each([
    [0, 0, 50],
    [0, 1, 100],
    [2, 0, 200],
    [2, 1, 400],
    [10, 1, 1_000],
  ])("when attempt %i draws %d, then it waits %i ms (equal jitter, bounded)", (attempt, draw, expected) => {
    expect(retryDelayMs(attempt, undefined, POLICY, () => draw)).toBe(expected);
  });

  it("when the upstream asked for a wait, then that wait is used, bounded by maxDelayMs", () => {
    expect(retryDelayMs(0, 300, POLICY, () => 1)).toBe(300);
    expect(retryDelayMs(0, 3_600_000, POLICY, () => 1)).toBe(1_000);
  });
});

describe("upstreamError", () => {
  it("when the upstream reports an error mid-stream, then the message is its own without the key, not retried", () => {
    const streamed = new APIError(
      undefined,
      { message: "context overflow for key k-123456" },
      undefined,
      new Headers(),
    );
    expect(upstreamError(streamed, undefined, "k-123456")).toEqual(
      new OpenAiCompatibleUpstreamError("Upstream reported an error mid-stream: context overflow for key [redacted]", {
        retryable: false,
      }),
    );
  });

  it("when a stream event is not JSON, then it says so and is not retried", () => {
    const error = upstreamError(
      new SyntaxError("Error reading response: malformed server-sent event JSON."),
      undefined,
      undefined,
    );
    expect(error).toMatchObject({ message: "Upstream sent a stream event that is not JSON", retryable: false });
  });
});
