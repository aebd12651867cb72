import { ApiKeyStore } from "@chorus/platform/api-keys";
import { redisKeys } from "@chorus/platform/redis";
import { Redis } from "ioredis";
import { APP_NODE_FLAGS, appEntryPoint } from "@chorus/local-runtime";
import { benchScript } from "../paths.js";
import { startNode, whileAlive, type BenchChild } from "./child-processes.js";
import { freePort, waitForHttp } from "./net.js";
import { startPrivateRedis, type PrivateRedis } from "./redis-server.js";

/** The gateway's prefix; the baselines write under their own so their jobs never mix. */
export const GATEWAY_PREFIX = "bench";
export const BASELINE_PREFIX = "bench-baseline";

/** High enough that no load run of the bench is ever rate limited (the limiter still runs). */
// The load rows hold far more requests in flight (no worker consumes during the submit row) and
// streams (the waiting row) than the deployment's caps allow one key: they measure throughput.
const BENCH_KEY_LIMITS = {
  text: 1_000_000_000,
  tts: 1_000_000_000,
  status: 1_000_000_000,
  inflight: 1_000_000,
  streams: 1_000_000,
};

/** A real API key of the gateway with the bench's raised limits and caps. */
export async function createBenchKey(redis: Redis, name: string): Promise<string> {
  const { secret } = await new ApiKeyStore(redis, redisKeys(GATEWAY_PREFIX)).create(name, ["*"], BENCH_KEY_LIMITS);
  return secret;
}

export interface HttpServerProcess {
  child: BenchChild;
  url: string;
}

export interface BenchStack {
  redisUrl: string;
  /** The bench's own Redis client (keys, queue resets, worker counts); never on a measured path. */
  redis: Redis;
  gateway: HttpServerProcess;
  minimalEnqueue: HttpServerProcess;
  minimalStatus: HttpServerProcess;
  /** A real API key of the gateway with raised limits. */
  apiKey: string;
  /** Environment every service process gets: a clean one, so the caller's settings do not leak in. */
  baseEnv: NodeJS.ProcessEnv;
  /** Deletes every job and status record (not keys or rate-limit counters) so runs start alike. */
  resetQueues(): Promise<void>;
  stop(): Promise<void>;
}

export interface StackOptions {
  profileDir: string | null;
}

export async function startHttpServer(
  label: string,
  script: string,
  env: NodeJS.ProcessEnv,
  nodeArgs: string[],
  ipc: boolean,
): Promise<HttpServerProcess> {
  const port = await freePort();
  const child = startNode(label, script, { env: { ...env, PORT: String(port) }, nodeArgs, ipc });
  const url = `http://127.0.0.1:${port}`;
  if (!(await whileAlive(child, waitForHttp(`${url}/healthz`, 20_000)))) {
    await child.stop(1000);
    throw new Error(`${label} did not answer on ${url}/healthz within 20 s:\n${child.output()}`);
  }
  return { child, url };
}

async function deleteMatching(redis: Redis, pattern: string): Promise<void> {
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 2000);
    if (keys.length > 0) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== "0");
}

function serviceEnv(redisUrl: string): NodeJS.ProcessEnv {
  const { PATH, HOME, TMPDIR } = process.env;
  // MAX_QUEUE_DEPTH=0: the submit load queues tens of thousands of jobs on purpose; backpressure
  // would turn the measurement into one of 503s.
  // WORKER_HTTP_PORT=0: a free port for each worker's health server, so the bench never collides
  // with a running service (or another bench) on the default 9100.
  return {
    PATH,
    HOME,
    TMPDIR,
    NODE_ENV: "production",
    REDIS_URL: redisUrl,
    LOG_LEVEL: "info",
    LOG_FORMAT: "json",
    MAX_QUEUE_DEPTH: "0",
    WORKER_HTTP_PORT: "0",
  };
}

/**
 * Private Redis; the real gateway (its real main, production logging to /dev/null); the two minimal
 * baseline servers, each in its own process; and a gateway key with raised limits.
 */
export async function startBenchStack(options: StackOptions): Promise<BenchStack> {
  const privateRedis: PrivateRedis = await startPrivateRedis();
  const redis = new Redis(privateRedis.url, { maxRetriesPerRequest: 1 });
  // A failed command rejects where it was sent; the connection's own events (reconnecting while the
  // private Redis stops) would otherwise print ioredis' "Unhandled error event" once per attempt.
  redis.on("error", () => undefined);
  const services: BenchChild[] = [];
  const stopAll = async (graceMs: number) => {
    await Promise.all(services.map((child) => child.stop(graceMs)));
    redis.disconnect();
    await privateRedis.child.stop(graceMs);
  };
  try {
    const baseEnv = serviceEnv(privateRedis.url);
    const profileArgs = options.profileDir ? ["--cpu-prof", `--cpu-prof-dir=${options.profileDir}`] : [];
    // The baselines run on the gateway's runtime (its Node flags), so the ratio is the cost of what
    // the gateway does, not of how V8 is set up.
    const runtime = [...APP_NODE_FLAGS.gateway];
    const gatewayEnv = { ...baseEnv, REDIS_PREFIX: GATEWAY_PREFIX, HOST: "127.0.0.1" };
    const gateway = await startHttpServer(
      "gateway",
      appEntryPoint("gateway"),
      gatewayEnv,
      [...runtime, ...profileArgs],
      false,
    );
    services.push(gateway.child);
    const minimalEnqueue = await startHttpServer(
      "minimal-enqueue",
      benchScript("baselines/minimal-enqueue.server.js"),
      { ...baseEnv, REDIS_PREFIX: BASELINE_PREFIX },
      runtime,
      true,
    );
    services.push(minimalEnqueue.child);
    const minimalStatus = await startHttpServer(
      "minimal-status",
      benchScript("baselines/minimal-status.server.js"),
      { ...baseEnv, REDIS_PREFIX: GATEWAY_PREFIX },
      runtime,
      true,
    );
    services.push(minimalStatus.child);
    const apiKey = await createBenchKey(redis, "bench");
    return {
      redisUrl: privateRedis.url,
      redis,
      gateway,
      minimalEnqueue,
      minimalStatus,
      apiKey,
      baseEnv,
      resetQueues: async () => {
        for (const prefix of [GATEWAY_PREFIX, BASELINE_PREFIX]) {
          await deleteMatching(redis, `${prefix}:bull:*`);
          await deleteMatching(redis, `${prefix}:status:*`);
          await deleteMatching(redis, `${prefix}:text-queue:*`); // waiting set, turns, in-flight counts
          await deleteMatching(redis, `${prefix}:routing:*`); // who holds which conversation, claims
        }
      },
      stop: () => stopAll(10_000),
    };
  } catch (error) {
    await stopAll(2000);
    throw error;
  }
}
