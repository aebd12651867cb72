import { describe, expect, it } from "@jest/globals";
import { ConfigError } from "@chorus/platform";
import { loadWorkerConfig } from "./config.js";

describe("worker configuration errors", () => {
  it.each([
    ["WEBHOOK_SECRET", "whsec_s3cret-with-dashes-is-not-base64", 'WEBHOOK_SECRET: must match pattern "^whsec_[A-Za-z0-9+/]{22,}={0,2}$"'],
    ["METRICS_TOKEN", "metrics s3cret token", 'METRICS_TOKEN: must match pattern "^\\S{16,}$"'],
  ])("when %s is malformed, then the error names it and its rule, and does not contain the value", (name, value, rule) => {
    let message = "";
    try {
      loadWorkerConfig({ [name]: value });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      message = (error as Error).message;
    }
    expect(message).toContain(`\n  ${rule}`);
    expect(message).not.toContain("s3cret");
  });
});
