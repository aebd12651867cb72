import { describe, expect, it } from "@jest/globals";
import { parseRetryAfterMs, redact, retryDelayMs, upstreamMessage } from "./openai-compatible.upstream-error.js";

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

describe("parseRetryAfterMs", () => {
  const now = Date.parse("2030-01-01T00:00:00Z");

  it.each([
    [{ "retry-after": "2" }, 2_000],
    [{ "retry-after": "0.5" }, 500],
    [{ "retry-after": "Tue, 01 Jan 2030 00:00:03 GMT" }, 3_000],
    [{ "retry-after": "Mon, 31 Dec 2029 00:00:00 GMT" }, 0],
    [{ "retry-after-ms": "250", "retry-after": "9" }, 250],
    [{ "retry-after": "soon" }, undefined],
    [{}, undefined],
  ])("when the headers are %j, then the wait is %s ms", (headers, expected) => {
    expect(parseRetryAfterMs(new Headers(headers), now)).toBe(expected);
  });
});

describe("upstreamMessage", () => {
  it.each([
    ['{"error":{"message":"bad model","type":"x"}}', "bad model"],
    ['{"error":"Input validation error","error_type":"validation"}', "Input validation error"],
    ['{"detail":"Not Found"}', "Not Found"],
    ["<html>\n  <body>502 Bad Gateway</body>\n</html>", "<html> <body>502 Bad Gateway</body> </html>"],
    ["", "(empty body)"],
  ])("when the body is %j, then the message is %j", (body, expected) => {
    expect(upstreamMessage(body, undefined)).toBe(expected);
  });
});

describe("redact", () => {
  it("when the text holds the key or a bearer token, then neither survives", () => {
    expect(redact("key sk-abc and Authorization: Bearer other-token", "sk-abc")).toBe("key [redacted] and Authorization: Bearer [redacted]");
  });

  it("when the key sits across the length limit, then no part of it survives", () => {
    const key = "sk-0123456789";
    const safe = redact(`${"a".repeat(295)}${key}${"b".repeat(100)}`, key);
    expect(safe).not.toContain("sk-01");
    expect(safe.length).toBeLessThanOrEqual(301);
  });
});
