import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Cluster, Redis } from "ioredis";
import { corkForThisTick } from "../src/redis/connection.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

describe("corkForThisTick (real Redis; PING and ECHO only, no keys)", () => {
  let redis: Redis;

  beforeAll(async () => {
    redis = new Redis(REDIS_URL, { enableAutoPipelining: false, lazyConnect: true });
    await redis.connect();
  });

  afterAll(() => {
    redis.disconnect();
  });

  it("when commands are issued in the tick it is called in, then they are held together and all sent when the tick ends", async () => {
    corkForThisTick(redis);
    const replies = Array.from({ length: 20 }, (_, i) => redis.echo(`m${i}`));
    // Held: written to the socket's buffer, not yet to the kernel.
    expect(redis.stream.writableCorked).toBe(1);
    expect(redis.stream.writableLength).toBeGreaterThan(0);
    expect(await Promise.all(replies)).toEqual(Array.from({ length: 20 }, (_, i) => `m${i}`));
    expect(redis.stream.writableCorked).toBe(0);
    expect(redis.stream.writableLength).toBe(0);
  });

  it("when it is called again in the same tick, then the socket is corked once and still freed when the tick ends", async () => {
    corkForThisTick(redis);
    const first = redis.ping();
    corkForThisTick(redis);
    const second = redis.ping();
    expect(redis.stream.writableCorked).toBe(1);
    expect(await Promise.all([first, second])).toEqual(["PONG", "PONG"]);
    expect(redis.stream.writableCorked).toBe(0);
  });

  it("when the connection is not ready, then nothing is held", () => {
    const idle = new Redis(REDIS_URL, { lazyConnect: true });
    expect(() => corkForThisTick(idle)).not.toThrow();
    expect(idle.stream).toBeUndefined();
    idle.disconnect();
  });

  it("when the client is a cluster (commands spread over nodes), then it is left as it is", () => {
    const cluster = new Cluster([{ host: "127.0.0.1", port: 1 }], { lazyConnect: true });
    expect(() => corkForThisTick(cluster)).not.toThrow();
    cluster.disconnect();
  });
});
