import { describe, expect, it } from "@jest/globals";
import { failureDetail, parseRetryAfterMs, redact, upstreamMessage } from "./upstream-text.js";

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
    ['{"detail":[{"loc":["body","voice"],"msg":"unknown voice"}]}', '[{"loc":["body","voice"],"msg":"unknown voice"}]'],
    ["", "(empty body)"],
  ])("when the body is %j, then the message is %j", (body, expected) => {
    expect(upstreamMessage(body, undefined)).toBe(expected);
  });
});

describe("redact", () => {
  it("when the text holds the key or a bearer token, then neither survives", () => {
    expect(redact("key sk-abc and Authorization: Bearer other-token", "sk-abc")).toBe(
      "key [redacted] and Authorization: Bearer [redacted]",
    );
  });

  it("when the key sits across the length limit, then no part of it survives", () => {
    const key = "sk-0123456789";
    const safe = redact(`${"a".repeat(295)}${key}${"b".repeat(100)}`, key);
    expect(safe).not.toContain("sk-01");
    expect(safe.length).toBeLessThanOrEqual(301);
  });
});

describe("failureDetail", () => {
  it("when the reason sits in a cause of a cause, then it is the deepest message", () => {
    const refused = new Error("connect ECONNREFUSED 127.0.0.1:9");
    const error = new Error("Connection error.", { cause: new TypeError("fetch failed", { cause: refused }) });
    expect(failureDetail(error)).toBe("connect ECONNREFUSED 127.0.0.1:9");
  });

  it("when the deepest cause has no message, then the last message above it stands", () => {
    expect(failureDetail(new TypeError("terminated", { cause: new AggregateError([]) }))).toBe("terminated");
  });
});
