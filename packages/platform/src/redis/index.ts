export {
  corkForThisTick,
  createGatewayRedis,
  createWorkerRedis,
  describeRedisTarget,
  waitUntilReady,
  type RedisClient,
} from "./connection.js";
export {
  jobsLeftBehind,
  KEY_LAYOUT,
  migrateKeyLayout,
  readKeyLayout,
  requireCurrentKeyLayout,
  type KeyLayoutMigration,
  type KeyLayoutState,
} from "./key-layout.js";
export { redactRedisUrl } from "./redact-url.js";
export { redisKeys, type RedisKeys } from "./redis-keys.js";
export { DEFAULT_REDIS_URL, redisTargetOf, type RedisSettings, type RedisTarget } from "./redis-target.js";
export { defineLuaScripts, type LuaCommand } from "./lua-scripts.js";
