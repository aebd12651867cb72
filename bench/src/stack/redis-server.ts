import { startPrivateRedis as startRedis } from "@chorus/local-runtime";
import { track, type BenchChild } from "./child-processes.js";

export interface PrivateRedis {
  url: string;
  child: BenchChild;
}

/**
 * A private `redis-server` (from PATH) on a free loopback port, without persistence, so the bench
 * never touches a Redis that holds someone's data and every run starts from an empty one. Registered
 * with everything else the bench started, so it is stopped with them.
 */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const redis = await startRedis(["--maxmemory-policy", "noeviction"]);
  return { url: redis.url, child: track(redis.child) };
}
