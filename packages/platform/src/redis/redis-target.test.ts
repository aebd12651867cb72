import { describe, expect, it } from "@jest/globals";
import { ConfigError } from "../config/load-config.js";
import { credentialOptions, DEFAULT_REDIS_URL, redisTargetOf } from "./redis-target.js";

const refused = (settings: Record<string, string>) => {
  try {
    redisTargetOf(settings);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`accepted: ${JSON.stringify(settings)}`);
};

describe("redisTargetOf", () => {
  it("when nothing is set, then it is the default URL", () => {
    expect(redisTargetOf({})).toEqual({ url: DEFAULT_REDIS_URL });
  });

  it("when REDIS_CLUSTER_NODES lists nodes, then the target is a cluster with those nodes and the credentials", () => {
    const target = redisTargetOf({
      REDIS_CLUSTER_NODES: "10.0.0.1:7000, redis-b:7001,[::1]:7002",
      REDIS_USERNAME: "chorus",
      REDIS_PASSWORD: "s3cret",
    });
    expect(target).toEqual({
      cluster: {
        nodes: [
          { host: "10.0.0.1", port: 7000 },
          { host: "redis-b", port: 7001 },
          { host: "::1", port: 7002 },
        ],
        username: "chorus",
        password: "s3cret",
      },
    });
    expect("cluster" in target && credentialOptions(target.cluster)).toEqual({
      username: "chorus",
      password: "s3cret",
    });
  });

  it("when REDIS_SENTINELS and its master are set, then the target is Sentinel's master", () => {
    expect(
      redisTargetOf({ REDIS_SENTINELS: "s1:26379,s2:26379", REDIS_SENTINEL_MASTER: "main", REDIS_PASSWORD: "p" }),
    ).toEqual({
      sentinel: {
        sentinels: [
          { host: "s1", port: 26379 },
          { host: "s2", port: 26379 },
        ],
        master: "main",
        password: "p",
      },
    });
  });

  it("when two ways of naming Redis are set, then start-up is refused naming both", () => {
    expect(refused({ REDIS_URL: "redis://x:6379", REDIS_CLUSTER_NODES: "a:1" })).toMatch(
      /REDIS_URL and REDIS_CLUSTER_NODES: set only one/,
    );
    expect(refused({ REDIS_SENTINELS: "a:1", REDIS_SENTINEL_MASTER: "m", REDIS_CLUSTER_NODES: "a:1" })).toMatch(
      /REDIS_SENTINELS and REDIS_CLUSTER_NODES/,
    );
  });

  it("when a setting only means something with another, then start-up is refused", () => {
    expect(refused({ REDIS_PASSWORD: "p" })).toMatch(
      /REDIS_PASSWORD: only used with REDIS_SENTINELS or REDIS_CLUSTER_NODES/,
    );
    expect(refused({ REDIS_CLUSTER_NODES: "a:1", REDIS_SENTINEL_MASTER: "m" })).toMatch(
      /REDIS_SENTINEL_MASTER: only used with REDIS_SENTINELS/,
    );
    expect(refused({ REDIS_SENTINELS: "a:1" })).toMatch(/needs REDIS_SENTINEL_MASTER/);
  });

  it("when a node is not host:port, then start-up is refused naming the entry by position, not echoing it", () => {
    expect(refused({ REDIS_CLUSTER_NODES: "a:1,b" })).toMatch(/REDIS_CLUSTER_NODES: entry 2 of 2 is not host:port/);
    expect(refused({ REDIS_CLUSTER_NODES: "" })).toMatch(/REDIS_CLUSTER_NODES: entry 1 of 1 is not host:port/);
    const pasted = refused({ REDIS_SENTINELS: "redis://:hunter2-sentinel@s1:26379", REDIS_SENTINEL_MASTER: "m" });
    expect(pasted).toMatch(/REDIS_SENTINELS: entry 1 of 1 is not host:port/);
    expect(pasted).not.toContain("hunter2");
  });
});
