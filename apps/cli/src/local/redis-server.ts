import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { Redis } from "ioredis";

export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

/** True when a Redis answers PING at `url` within `timeoutMs`. */
export async function redisAnswers(url: string, timeoutMs = 1000): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
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

export async function freePort(): Promise<number> {
  return bindable(0, "127.0.0.1") as Promise<number>;
}

/** `port` when it can be bound on every interface right now, else a free one. */
export async function portOrFree(port: number): Promise<number> {
  return (await bindable(port, "0.0.0.0").catch(() => null)) ?? freePort();
}

function bindable(port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(port, host, () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

export interface PrivateRedis {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts `redis-server` from PATH on a loopback port (a free one unless given), without persistence
 * unless `extraArgs` asks for it, for this process's life.
 */
export async function startPrivateRedis(extraArgs: string[] = [], port?: number): Promise<PrivateRedis> {
  port ??= await freePort();
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", ...extraArgs], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  const spawnError = new Promise<never>((_, reject) =>
    child.once("error", (e) => reject(new Error(`could not start redis-server (${e.message}); install Redis or set REDIS_URL`))),
  );
  const url = `redis://127.0.0.1:${port}`;
  const password = extraArgs[extraArgs.indexOf("--requirepass") + 1];
  const probeUrl = extraArgs.includes("--requirepass") && password ? `redis://:${encodeURIComponent(password)}@127.0.0.1:${port}` : url;
  const ready = (async () => {
    for (let i = 0; i < 100; i++) {
      if (await redisAnswers(probeUrl, 200)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error("redis-server did not answer within 5 s");
  })();
  await Promise.race([ready, spawnError]);
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  };
  return { url, process: child, stop };
}
