import { describeRedisTarget, type RedisTarget } from "@chorus/platform/redis";

/**
 * What failed, for the person running a command against Redis: the URL without its password, and
 * the cause as Redis or the network gave it. `connectionError` is the last error the connection
 * reported (a refused connection only shows as "Connection is closed." on the command itself).
 */
export function describeRedisFailure(error: unknown, target: RedisTarget, connectionError?: Error): string {
  const where = describeRedisTarget(target);
  const credentials = "url" in target ? "the user and password in REDIS_URL" : "REDIS_USERNAME and REDIS_PASSWORD";
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof Error && error.name === "ReplyError") {
    if (/^(NOAUTH|WRONGPASS)\b/.test(message))
      return `Redis at ${where} refused the credentials (${credentials}): ${message}`;
    return `Redis at ${where} answered with an error: ${message}`;
  }
  if (connectionError) return `could not reach Redis at ${where}: ${connectionError.message}`;
  return `failed talking to Redis at ${where}: ${message}`;
}
