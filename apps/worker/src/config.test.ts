import { ConfigError } from "@chorus/platform/config";
import { describe, expect, it } from "@jest/globals";
import { loadWorkerConfig, spokenReplyTtlSeconds } from "./config.js";

describe("worker configuration errors", () => {
  it.each([
    [
      "WEBHOOK_SECRET",
      "whsec_s3cret-with-dashes-is-not-base64",
      'WEBHOOK_SECRET: must match pattern "^whsec_[A-Za-z0-9+/]{22,}={0,2}$"',
    ],
    ["METRICS_TOKEN", "metrics s3cret token", 'METRICS_TOKEN: must match pattern "^\\S{16,}$"'],
  ])(
    "when %s is malformed, then the error names it and its rule, and does not contain the value",
    (name, value, rule) => {
      let message = "";
      try {
        loadWorkerConfig({ [name]: value });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        message = (error as Error).message;
      }
      expect(message).toContain(`\n  ${rule}`);
      expect(message).not.toContain("s3cret");
    },
  );
});

describe("SPOKEN_REPLY_TTL_SECONDS", () => {
  it("when it is not set, then a spoken reply's audio is kept an hour", () => {
    expect(spokenReplyTtlSeconds(loadWorkerConfig({}))).toBe(3600);
  });

  it("when it is set, then that is the audio's lifetime", () => {
    expect(spokenReplyTtlSeconds(loadWorkerConfig({ SPOKEN_REPLY_TTL_SECONDS: "600" }))).toBe(600);
  });

  it("when it is longer than STATUS_TTL_SECONDS, then the audio lives as long as the record, not longer", () => {
    expect(
      spokenReplyTtlSeconds(loadWorkerConfig({ SPOKEN_REPLY_TTL_SECONDS: "7200", STATUS_TTL_SECONDS: "1800" })),
    ).toBe(1800);
    expect(spokenReplyTtlSeconds(loadWorkerConfig({ STATUS_TTL_SECONDS: "300" }))).toBe(300);
  });

  it("when it is below a minute or not a number, then start-up is refused naming it", () => {
    for (const value of ["59", "soon"]) {
      expect(() => loadWorkerConfig({ SPOKEN_REPLY_TTL_SECONDS: value })).toThrow(ConfigError);
      expect(() => loadWorkerConfig({ SPOKEN_REPLY_TTL_SECONDS: value })).toThrow(/SPOKEN_REPLY_TTL_SECONDS/);
    }
  });
});

describe("LLM_CACHE_RAM_MB", () => {
  it("when it is set, then that is the size, and 0 switches the cache off", () => {
    expect(loadWorkerConfig({ LLM_CACHE_RAM_MB: "256" }).LLM_CACHE_RAM_MB).toBe(256);
    expect(loadWorkerConfig({ LLM_CACHE_RAM_MB: "0" }).LLM_CACHE_RAM_MB).toBe(0);
  });
});
