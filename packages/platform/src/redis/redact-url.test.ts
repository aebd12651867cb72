import { describe, expect, it } from "@jest/globals";
import { redactRedisUrl } from "./redact-url.js";

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

  it("when the password is a query parameter (ioredis reads ?password=), then its value is hidden", () => {
    expect(redactRedisUrl("redis://h?password=s3cret")).toBe("redis://h?password=***");
    expect(redactRedisUrl("rediss://cache:6380/0?password=s3cret")).toBe("rediss://cache:6380/0?password=***");
  });

  it("when ?password= sits among other parameters, then only the secret values are hidden", () => {
    expect(redactRedisUrl("redis://h:6379/1?family=6&password=s3cret&db=2")).toBe(
      "redis://h:6379/1?family=6&password=***&db=2",
    );
    expect(redactRedisUrl("redis://h?sentinelPassword=s3cret&tls=true")).toBe(
      "redis://h?sentinelPassword=***&tls=true",
    );
  });

  it("when the parameter's name or value is percent-encoded, then the value is hidden all the same", () => {
    const redacted = redactRedisUrl("redis://h?pass%77ord=p%40ss%26word&PASSWORD=x%2Cy");
    expect(redacted).toBe("redis://h?pass%77ord=***&PASSWORD=***");
    expect(redactRedisUrl("redis://h?pass%zzword=s3cret")).toBe("redis://h?pass%zzword=***");
  });

  it("when a secret value holds a comma or a '#', then none of it shows", () => {
    expect(redactRedisUrl("redis://h?password=ab,cd#ef")).toBe("redis://h?password=***");
  });

  it("when the URL has both userinfo and ?password=, then both are hidden", () => {
    expect(redactRedisUrl("rediss://u:one@h:6380?password=two")).toBe("rediss://u:***@h:6380?password=***");
  });

  it("when the userinfo password holds unencoded '@', '/', '?', ',' or '#', then none of it shows", () => {
    for (const password of ["p@ss", "a/b", "a?b", "a,b", "a#b", "x,redis//y"]) {
      const redacted = redactRedisUrl(`redis://u:${password}@h:6379`);
      expect([password, redacted]).toEqual([password, "redis://u:***@h:6379"]);
    }
  });

  it("when the URL has no scheme, then its userinfo and query passwords are hidden", () => {
    expect(redactRedisUrl("default:s3cret@redis:6379")).toBe("default:***@redis:6379");
    expect(redactRedisUrl("//:s3cret@redis:6379")).toBe("//:***@redis:6379");
    expect(redactRedisUrl("redis:6379?password=s3cret")).toBe("redis:6379?password=***");
    expect(redactRedisUrl("/run/redis.sock?password=s3cret&db=1")).toBe("/run/redis.sock?password=***&db=1");
  });

  it("when a Sentinel or cluster list carries passwords, then every entry's password is hidden and the hosts kept", () => {
    expect(redactRedisUrl("redis://:s3cret@h1:26379,h2:26379,h3:26379")).toBe(
      "redis://:***@h1:26379,h2:26379,h3:26379",
    );
    expect(redactRedisUrl("redis://a:one@h1:7000,rediss://b:two@h2:7001?password=three")).toBe(
      "redis://a:***@h1:7000,rediss://b:***@h2:7001?password=***",
    );
    expect(redactRedisUrl("h1:7000,h2:7001")).toBe("h1:7000,h2:7001");
  });
});
