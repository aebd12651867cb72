import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { startChild, startNodeScript, whileAlive, type RunningChild } from "./child-process.js";
import { freePort } from "./ports.js";

export { DEFAULT_REDIS_URL } from "@chorus/platform/redis";

/** True when a Redis answers PING at `url` within `timeoutMs`. */
export async function redisAnswers(url: string, timeoutMs = 1000): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
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

export interface PrivateRedis {
  url: string;
  child: RunningChild;
  stop(): Promise<void>;
}

export interface PrivateRedisOptions {
  /** A port of its own choosing (a test that restarts Redis on the same port); else a free one. */
  port?: number;
  /**
   * For `npm start`: run it in a process group of its own (a terminal's Ctrl-C reaches only the
   * launcher, which stops Redis last) and on a leash (it stops when this process ends, even by
   * `kill -9`). Tests and the bench leave it off and stop their Redis themselves.
   */
  ownGroup?: boolean;
}

const LEASH = fileURLToPath(new URL("./run-while-parent-lives.js", import.meta.url));

function spawnRedis(args: string[], ownGroup: boolean): RunningChild {
  const output = { stdout: "ignore", stderr: "inherit" } as const;
  if (!ownGroup) return startChild("redis-server", "redis-server", { args, ...output });
  return startNodeScript("redis-server", LEASH, {
    args: ["redis-server", ...args],
    ownGroup: true,
    stdinPipe: true,
    ...output,
  });
}

/**
 * Starts `redis-server` from PATH on a loopback port, without persistence unless `extraArgs` asks
 * for it (later arguments win), for this process's life.
 */
export async function startPrivateRedis(
  extraArgs: string[] = [],
  options: PrivateRedisOptions = {},
): Promise<PrivateRedis> {
  const port = options.port ?? (await freePort());
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", ...extraArgs];
  let child: RunningChild;
  try {
    child = spawnRedis(args, options.ownGroup === true);
  } catch (error) {
    throw new Error(
      `could not start redis-server (${error instanceof Error ? error.message : String(error)}); install Redis or set REDIS_URL`,
    );
  }
  const url = `redis://127.0.0.1:${port}`;
  const password = extraArgs[extraArgs.indexOf("--requirepass") + 1];
  const probeUrl =
    extraArgs.includes("--requirepass") && password
      ? `redis://:${encodeURIComponent(password)}@127.0.0.1:${port}`
      : url;
  try {
    await whileAlive(child, answering(probeUrl));
  } catch (error) {
    await child.stop(1000);
    throw error;
  }
  // A generous grace: a Redis that keeps data (npm start's --redis-data) flushes it on SIGTERM.
  return { url, child, stop: () => child.stop(30_000) };
}

async function answering(url: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (await redisAnswers(url, 200)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("redis-server did not answer within 5 s");
}
