import { describe, expect, it } from "@jest/globals";
import { describeRedisFailure } from "./redis-failure.js";

const URL_WITH_PASSWORD = { url: "redis://admin:s3cret@redis.internal:6379/2" };
const replyError = (message: string) => Object.assign(new Error(message), { name: "ReplyError" });

describe("describeRedisFailure", () => {
  it("when the connection was refused, then it says Redis could not be reached, why, and hides the password", () => {
    const text = describeRedisFailure(
      new Error("Connection is closed."),
      URL_WITH_PASSWORD,
      new Error("connect ECONNREFUSED 10.0.0.7:6379"),
    );
    expect(text).toBe(
      "could not reach Redis at redis://admin:***@redis.internal:6379/2: connect ECONNREFUSED 10.0.0.7:6379",
    );
  });

  it.each(["WRONGPASS invalid username-password pair or user is disabled.", "NOAUTH Authentication required."])(
    "when Redis answers %j, then it says the credentials were refused",
    (message) => {
      // ioredis reports the refusal on the connection too; the reply is what says what happened.
      const text = describeRedisFailure(replyError(message), URL_WITH_PASSWORD, replyError(message));
      expect(text).toBe(
        `Redis at redis://admin:***@redis.internal:6379/2 refused the credentials (the user and password in REDIS_URL): ${message}`,
      );
    },
  );

  it("when Redis answers a command with another error, then that error is given as Redis' answer", () => {
    const text = describeRedisFailure(
      replyError("READONLY You can't write against a read only replica."),
      URL_WITH_PASSWORD,
    );
    expect(text).toBe(
      "Redis at redis://admin:***@redis.internal:6379/2 answered with an error: READONLY You can't write against a read only replica.",
    );
  });

  it("when the failure is neither, then its own message is given, and still no password", () => {
    const text = describeRedisFailure(new Error("Command timed out"), URL_WITH_PASSWORD);
    expect(text).toBe("failed talking to Redis at redis://admin:***@redis.internal:6379/2: Command timed out");
    expect(text).not.toContain("s3cret");
  });
});
