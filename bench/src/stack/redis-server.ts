import { redisAnswers } from "../../../apps/cli/dist/local/redis-server.js";
import { sleep } from "../metrics/clock.js";
import { startCommand, whileAlive, type BenchChild } from "./child-processes.js";
import { freePort } from "./net.js";

export interface PrivateRedis {
  url: string;
  child: BenchChild;
}

/**
 * A private `redis-server` (from PATH) on a free loopback port, without persistence, so the bench
 * never touches a Redis that holds someone's data and every run starts from an empty one.
 * (It reuses the launcher's probe; the process itself is started through the bench's registry,
 * which guarantees it is stopped with everything else the bench started.)
 */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--maxmemory-policy", "noeviction"];
  const child = startCommand("redis-server", "redis-server", args);
  const url = `redis://127.0.0.1:${port}`;
  const ready = (async () => {
    for (let attempt = 0; attempt < 100; attempt++) {
      if (await redisAnswers(url, 200)) return;
      await sleep(50);
    }
    throw new Error("redis-server did not answer within 5 s");
  })();
  await whileAlive(child, ready);
  return { url, child };
}
