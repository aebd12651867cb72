import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";

export { DEFAULT_REDIS_URL } from "@chorus/platform";

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

export interface PrivateRedisOptions {
  /**
   * For `npm start`: run it in a process group of its own (a terminal's Ctrl-C reaches only the
   * launcher, which stops Redis last) and on a leash (it stops when this process ends, even by
   * `kill -9`). Tests leave it off and stop their Redis themselves.
   */
  ownGroup?: boolean;
}

const LEASH = fileURLToPath(new URL("./run-while-parent-lives.js", import.meta.url));

function spawnRedis(args: string[], ownGroup: boolean): ChildProcess {
  if (!ownGroup) return spawn("redis-server", args, { stdio: ["ignore", "ignore", "inherit"] });
  return spawn(process.execPath, [LEASH, "redis-server", ...args], { detached: true, stdio: ["pipe", "ignore", "inherit"] });
}

/**
 * Starts `redis-server` from PATH on a loopback port (a free one unless given), without persistence
 * unless `extraArgs` asks for it (later arguments win), for this process's life.
 */
export async function startPrivateRedis(extraArgs: string[] = [], port?: number, options: PrivateRedisOptions = {}): Promise<PrivateRedis> {
  port ??= await freePort();
  const child = spawnRedis(["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", ...extraArgs], options.ownGroup === true);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const failed = new Promise<never>((_, reject) => {
    child.once("error", (e) => reject(new Error(`could not start redis-server (${e.message}); install Redis or set REDIS_URL`)));
    void exited.then(() => reject(new Error(`redis-server stopped at once (exit code ${String(child.exitCode)})`)));
  });
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
  try {
    await Promise.race([ready, failed]);
  } catch (error) {
    child.kill("SIGTERM");
    throw error;
  }
  failed.catch(() => undefined);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };
  return { url, process: child, stop };
}
