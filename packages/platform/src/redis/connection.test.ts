import { describe, expect, it } from "@jest/globals";
import { redactRedisUrl } from "./connection.js";

describe("redactRedisUrl", () => {
  it("when the URL carries a user and a password, then the password is hidden and the user kept", () => {
    expect(redactRedisUrl("redis://worker:s3cret@redis.internal:6379/2")).toBe(
      "redis://worker:***@redis.internal:6379/2",
    );
  });

  it("when the URL carries only a password, then the password is hidden", () => {
    expect(redactRedisUrl("redis://:s3cret@127.0.0.1:6379")).toBe("redis://:***@127.0.0.1:6379");
  });

  it("when the password is percent-encoded on a TLS URL, then none of it shows", () => {
    const redacted = redactRedisUrl("rediss://default:p%40ss%3Aword@cache.example.com:6380");
    expect(redacted).toBe("rediss://default:***@cache.example.com:6380");
    expect(redacted).not.toMatch(/p%40ss|word/);
  });

  it("when the URL has no password, then it is returned unchanged", () => {
    expect(redactRedisUrl("redis://127.0.0.1:6379")).toBe("redis://127.0.0.1:6379");
    expect(redactRedisUrl("redis://worker@127.0.0.1:6379")).toBe("redis://worker@127.0.0.1:6379");
  });

  it("when the input is not a URL at all, then a fixed placeholder is returned instead of the input", () => {
    for (const garbage of ["", "not a url", "redis://[::1", "://:secret@"]) {
      expect([garbage, redactRedisUrl(garbage)]).toEqual([garbage, "(unparseable Redis URL)"]);
    }
  });

  it("when a scheme-less value carries user:password@, then the password does not leak", () => {
    expect(redactRedisUrl("default:s3cret@redis:6379")).not.toContain("s3cret");
  });
});
