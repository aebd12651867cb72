import { Cluster, Redis, type ClusterOptions, type RedisOptions } from "ioredis";
import { redactRedisUrl } from "./redact-url.js";
import { credentialOptions, sentinelOptions, type RedisTarget } from "./redis-target.js";

/** A connection to one Redis (direct or through Sentinel) or to a Redis Cluster: the service uses either alike. */
export type RedisClient = Redis | Cluster;

/**
 * The same settings for a cluster: what concerns the whole client (offline queue, auto-pipelining,
 * reconnecting, lazy connect) at the top, what concerns each node's connection in `redisOptions`.
 */
function clusterOptionsOf({
  enableOfflineQueue,
  enableAutoPipelining,
  retryStrategy,
  lazyConnect,
  ...perNode
}: RedisOptions): ClusterOptions {
  const options: ClusterOptions = { redisOptions: perNode };
  if (enableOfflineQueue !== undefined) options.enableOfflineQueue = enableOfflineQueue;
  if (enableAutoPipelining !== undefined) options.enableAutoPipelining = enableAutoPipelining;
  if (lazyConnect !== undefined) options.lazyConnect = lazyConnect;
  if (retryStrategy) options.clusterRetryStrategy = (attempt) => retryStrategy(attempt);
  return options;
}

/** A Redis URL, or the target the settings name (redisTargetOf): every connection is made here. */
function connect(target: string | RedisTarget, options: RedisOptions): RedisClient {
  if (typeof target === "string") return new Redis(target, options);
  if ("url" in target) return new Redis(target.url, options);
  if ("cluster" in target)
    return new Cluster(target.cluster.nodes, clusterOptionsOf({ ...credentialOptions(target.cluster), ...options }));
  return new Redis({ ...sentinelOptions(target.sentinel), ...options });
}

/**
 * Gateways fail fast while Redis is away (BullMQ's production guide): no offline queue, one retry,
 * a short command timeout, so a request gets a 503 in about a second instead of hanging.
 */
export function createGatewayRedis(target: string | RedisTarget, overrides: RedisOptions = {}): RedisClient {
  return connect(target, {
    // Commands issued by concurrent requests in one tick share one write: the gateway's largest
    // single saving under load (see npm run bench).
    enableAutoPipelining: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 1500,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    ...overrides,
  });
}

/** Workers wait for Redis instead (BullMQ requires `maxRetriesPerRequest: null` for workers). */
export function createWorkerRedis(target: string | RedisTarget, overrides: RedisOptions = {}): RedisClient {
  return connect(target, {
    maxRetriesPerRequest: null,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    ...overrides,
  });
}

/** Resolves once the client is ready, or rejects after `timeoutMs`. */
export async function waitUntilReady(redis: RedisClient, timeoutMs: number): Promise<void> {
  if (redis.status === "ready") return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      redis.off("ready", onReady);
      reject(new Error(`Redis did not become ready within ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    redis.once("ready", onReady);
  });
}

/** For logs: the URL without its password, the cluster's seed nodes, or the master's name and its sentinels. */
export function describeRedisTarget(target: RedisTarget): string {
  if ("url" in target) return redactRedisUrl(target.url);
  if ("cluster" in target) return `cluster via ${target.cluster.nodes.map((n) => `${n.host}:${n.port}`).join(",")}`;
  return `sentinel master ${target.sentinel.master} via ${target.sentinel.sentinels.map((s) => `${s.host}:${s.port}`).join(",")}`;
}

/**
 * Holds a connection's writes until the current tick ends, so the commands issued in it leave in one
 * write (writev) instead of one system call each: what auto-pipelining does, without its cost per
 * batch on a connection that carries BullMQ's scripts (see createGatewayDeps). Many submits resume
 * in one tick (their records' replies arrive in one read) and each adds its job there. A cluster
 * spreads its commands over nodes and is left as it is.
 */
export function corkForThisTick(redis: RedisClient): void {
  if (redis instanceof Cluster || redis.status !== "ready") return;
  const stream = redis.stream;
  if (stream.writableCorked > 0) return;
  stream.cork();
  process.nextTick(() => stream.uncork());
}
