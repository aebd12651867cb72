import { parseArgs } from "node:util";
import { createLogger } from "@chorus/platform/logger";
import {
  environmentUsage,
  loadOrExit,
  onShutdownSignal,
  parseCommandLine,
  stopWhenLauncherExits,
  describeListening,
  listenOn,
} from "@chorus/platform/process";
import { describeRedisTarget, redisTargetOf, requireCurrentKeyLayout, waitUntilReady } from "@chorus/platform/redis";
import { buildApp, redisConnections } from "./app.js";
import { GATEWAY_ENV, loadGatewayConfig } from "./config.js";
import { createGatewayDeps } from "./dependencies.js";
import { createHttpServer } from "./http-server.js";

parseCommandLine(
  `usage: npm run gateway   (node apps/gateway/dist/main.js)\n\nThe HTTP gateway. It takes no options; it is configured by the environment:\n${environmentUsage(GATEWAY_ENV)}`,
  (args) => parseArgs({ args, options: {} }),
);
stopWhenLauncherExits();

const config = loadOrExit(() => loadGatewayConfig(process.env));
const logger = createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT, service: "gateway" });
const exitWith =
  (code: number) =>
  (error: unknown): never => {
    logger.error(error instanceof Error ? error.message : String(error));
    process.exit(code);
  };
const deps = createGatewayDeps(config, logger);
// Serve even if Redis is down (requests get 503 until it is back), but give it a moment first.
const ready = await Promise.all(redisConnections(deps).map((redis) => waitUntilReady(redis, 3000))).then(
  () => true,
  () => {
    logger.warn("Redis is not reachable yet; answering 503 until it is");
    return false;
  },
);
// Keys of an earlier release are moved by `npm run migrate`, before this release starts: refuse rather than answer 401
// to every key.
if (ready) await requireCurrentKeyLayout(deps.redis, config.REDIS_PREFIX).catch(exitWith(1));
const server = createHttpServer(buildApp(deps), config);
// A taken port must stop the process: a gateway that cannot listen serves nobody.
const address = await listenOn(server, config.PORT, config.HOST, { port: "PORT", host: "HOST" }).catch(exitWith(1));
logger.info(`gateway listening on ${describeListening(address)}`, {
  address: address.address,
  port: address.port,
  redis: describeRedisTarget(redisTargetOf(config)),
  prefix: config.REDIS_PREFIX,
});

onShutdownSignal(logger, 10_000, async () => {
  // Stop accepting connections, let in-flight requests finish, then release Redis. Clients waiting
  // with `Prefer: wait` are answered at once with their record as it stands; open status streams end
  // (their clients reconnect with Last-Event-ID, to another gateway).
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  deps.finalStatusWaits.close();
  deps.statusChanges.close();
  await closed;
  await deps.close();
});
