import { Redis } from "ioredis";
import { sleep } from "../metrics/clock.js";
import { startCommand, whileAlive, type BenchChild } from "./child-processes.js";
import { freePort } from "./net.js";

export interface PrivateRedis {
  url: string;
  child: BenchChild;
}

async function answersPing(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, connectTimeout: 200, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
  client.on("error", () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/**
 * A private `redis-server` (from PATH) on a free loopback port, without persistence, so the bench
 * never touches a Redis that holds someone's data and every run starts from an empty one.
 * (apps/cli has an equivalent for `npm start`; the bench keeps its own so the two can evolve apart.)
 */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--maxmemory-policy", "noeviction"];
  const child = startCommand("redis-server", "redis-server", args);
  const url = `redis://127.0.0.1:${port}`;
  const ready = (async () => {
    for (let attempt = 0; attempt < 100; attempt++) {
      if (await answersPing(url)) return;
      await sleep(50);
    }
    throw new Error("redis-server did not answer within 5 s");
  })();
  await whileAlive(child, ready);
  return { url, child };
}
