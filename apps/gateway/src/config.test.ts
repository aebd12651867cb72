import { describe, expect, it } from "@jest/globals";
import { ConfigError } from "@chorus/platform/config";
import { loadGatewayConfig } from "./config.js";

/** The message start-up prints (loadOrExit writes it to stderr as it is). */
function startUpError(env: Record<string, string>): string {
  try {
    loadGatewayConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`accepted: ${Object.keys(env).join(", ")}`);
}

// Each value is a near miss of a real secret (what an operator pastes with a mistake), marked s3cret.
describe("gateway configuration errors", () => {
  it.each([
    [
      "ADMIN_TOKEN",
      "s3cret admin token with spaces 0123456789",
      'ADMIN_TOKEN: must match pattern "^\\S{32,}$" (when set,',
    ],
    ["ADMIN_TOKEN", "short-admin-s3cret", 'ADMIN_TOKEN: must match pattern "^\\S{32,}$" (when set,'],
    ["METRICS_TOKEN", "metrics s3cret token", 'METRICS_TOKEN: must match pattern "^\\S{16,}$" (when set,'],
    [
      "WEBHOOK_SECRET",
      "whsec_s3cret!not-base64-at-all-0123456789",
      'WEBHOOK_SECRET: must match pattern "^whsec_[A-Za-z0-9+/]{22,}={0,2}$" (Standard',
    ],
    [
      "REDIS_URL",
      "http://admin:s3cret-redis-pass@redis:6379",
      'REDIS_URL: must match pattern "^rediss?://" (Redis connection URL',
    ],
  ])(
    "when %s is malformed, then the error names it and its rule, and does not contain the value",
    (name, value, rule) => {
      const message = startUpError({ [name]: value });
      expect(message).toContain(`\n  ${rule}`);
      expect(message).not.toContain(value);
      expect(message).not.toContain("s3cret"); // nor any piece of it
    },
  );

  it("when REDIS_PASSWORD is set where it means nothing, then the error names it and the rule, not the password", () => {
    const message = startUpError({ REDIS_URL: "redis://redis:6379", REDIS_PASSWORD: "hunter2-redis-password" });
    expect(message).toMatch(/REDIS_PASSWORD: only used with REDIS_SENTINELS or REDIS_CLUSTER_NODES/);
    expect(message).not.toContain("hunter2");
  });

  it("when REDIS_URL carries a password and another setting is bad, then the password is not in the error", () => {
    const message = startUpError({ REDIS_URL: "redis://admin:hunter2-in-url@redis:6379", PORT: "70000" });
    expect(message).toMatch(/PORT: must be <= 65535/);
    expect(message).not.toContain("hunter2");
  });

  it("when the tokens are well formed, then they load as given (the rules refuse only the malformed)", () => {
    const tokens = {
      ADMIN_TOKEN: "a".repeat(32),
      METRICS_TOKEN: "m".repeat(16),
      WEBHOOK_SECRET: `whsec_${"A".repeat(32)}`,
    };
    expect(loadGatewayConfig({ ...tokens, REDIS_URL: "rediss://u:p@redis:6380/1" })).toMatchObject({
      ...tokens,
      REDIS_URL: "rediss://u:p@redis:6380/1",
    });
  });
});

describe("gateway HTTP server settings", () => {
  it("when none is set, then headers must come within 10 s, a whole request within 30 s, and idle connections live 65 s", () => {
    expect(loadGatewayConfig({})).toMatchObject({
      HTTP_HEADERS_TIMEOUT_MS: 10000,
      HTTP_REQUEST_TIMEOUT_MS: 30000,
      HTTP_KEEP_ALIVE_TIMEOUT_MS: 65000,
    });
  });

  it("when the headers timeout is longer than the request timeout, then start-up is refused naming both", () => {
    const message = startUpError({ HTTP_HEADERS_TIMEOUT_MS: "20000", HTTP_REQUEST_TIMEOUT_MS: "15000" });
    expect(message).toContain("\n  HTTP_HEADERS_TIMEOUT_MS: must be <= HTTP_REQUEST_TIMEOUT_MS");
  });
});
