import { describe, expect, it } from "@jest/globals";
import { parseOverlap, parseWebhookHosts, UsageError } from "./keys-webhooks.js";

describe("keys' webhook options", () => {
  it.each([
    ["90", 90],
    ["90s", 90],
    ["30m", 1800],
    ["1h", 3600],
    ["2d", 172800],
  ])("when --overlap is %s, then it is %i seconds", (value, seconds) => {
    expect(parseOverlap(value)).toBe(seconds);
  });

  it.each(["1w", "-1h", "h", "1.5h", "31d"])("when --overlap is %s, then it is a usage error", (value) => {
    expect(() => parseOverlap(value)).toThrow(UsageError);
  });

  it("when --webhook-hosts is a list, '*' or empty, then it is those hosts, any host (null) or none", () => {
    expect(parseWebhookHosts(" a.example, *.b.example ")).toEqual(["a.example", "*.b.example"]);
    expect(parseWebhookHosts("*")).toBeNull();
    expect(parseWebhookHosts("")).toEqual([]);
  });
});
