import { COMMON_ENV } from "@chorus/platform/config";
import { loadOrExit } from "@chorus/platform/process";
import {
  createWorkerRedis,
  DEFAULT_REDIS_URL,
  redisTargetOf,
  type RedisClient,
  type RedisTarget,
} from "@chorus/platform/redis";
import { runningLocalRedis } from "./local/local-state.js";
import { describeRedisFailure } from "./redis-failure.js";

/**
 * The service's Redis settings; with none of them, the private Redis (and key prefix) of a running
 * `npm start` of this checkout, else 127.0.0.1:6379. REDIS_PREFIX set always wins.
 */
function redisTarget(env: NodeJS.ProcessEnv): { target: RedisTarget; prefix: string } {
  const settings = Object.fromEntries(
    Object.entries(env).filter(([name, value]) => name.startsWith("REDIS_") && value !== ""),
  );
  const target = redisTargetOf(settings);
  const prefix = settings.REDIS_PREFIX || COMMON_ENV.REDIS_PREFIX.default;
  if (!("url" in target) || settings.REDIS_URL) return { target, prefix };
  const local = runningLocalRedis();
  return local
    ? { target: { url: local.redisUrl }, prefix: settings.REDIS_PREFIX || local.prefix }
    : { target: { url: DEFAULT_REDIS_URL }, prefix };
}

/**
 * Runs an operator command (`keys`, `migrate`) on the service's Redis. An error `isUsage` accepts is
 * the operator's (exit 2, its message); any other is said as what failed talking to Redis (exit 1).
 */
export async function runOnRedis(
  command: string,
  run: (redis: RedisClient, prefix: string) => Promise<void>,
  isUsage: (error: unknown) => boolean,
): Promise<void> {
  const { target, prefix } = loadOrExit(() => redisTarget(process.env));
  const redis = createWorkerRedis(target, { maxRetriesPerRequest: 1, retryStrategy: () => null });
  let connectionError: Error | undefined;
  redis.on("error", (error: Error) => {
    connectionError = error; // said once, with the command's failure, rather than logged as it happens
  });
  try {
    await run(redis, prefix);
  } catch (error) {
    const usage = isUsage(error);
    process.stderr.write(
      `${command}: ${usage && error instanceof Error ? error.message : describeRedisFailure(error, target, connectionError)}\n`,
    );
    process.exitCode = usage ? 2 : 1;
  } finally {
    redis.disconnect();
  }
}
