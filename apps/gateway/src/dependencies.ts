import { ApiKeyStore, createGatewayRedis, createTextQueue, redisKeys, StatusStore, type Logger } from "@chorus/platform";
import type { GatewayDeps } from "./app.js";
import type { GatewayConfig } from "./config.js";
import { TextJobs } from "./services/text-jobs.service.js";

function parseTrustProxy(value: string): boolean | number | string {
  if (value === "true" || value === "false") return value === "true";
  return /^\d+$/.test(value) ? Number(value) : value;
}

/** Builds what the app needs from configuration; `close()` releases it all. */
export function createGatewayDeps(config: GatewayConfig, logger: Logger): GatewayDeps & { close(): Promise<void> } {
  const redis = createGatewayRedis(config.REDIS_URL);
  redis.on("error", (error: Error) => logger.warn("redis connection error", { error: error.message }));
  const keys = redisKeys(config.REDIS_PREFIX);
  const statuses = new StatusStore(redis, keys, config.STATUS_TTL_SECONDS);
  const textQueue = createTextQueue(redis, keys);
  textQueue.on("error", (error: Error) => logger.warn("text queue error", { error: error.message }));
  return {
    redis,
    keys,
    logger,
    apiKeys: new ApiKeyStore(redis, keys),
    statuses,
    textJobs: new TextJobs(statuses, textQueue, redis, keys),
    limits: { text: config.RATE_LIMIT_TEXT, tts: config.RATE_LIMIT_TTS, status: config.RATE_LIMIT_STATUS },
    rateLimitWindowMs: config.RATE_LIMIT_WINDOW_MS,
    authFailureLimit: config.AUTH_FAILURE_LIMIT,
    trustProxy: parseTrustProxy(config.TRUST_PROXY),
    close: async () => {
      await textQueue.close();
      redis.disconnect();
    },
  };
}
