import type { OperationLimits } from "@chorus/contracts";
import { waitUntilReady, type Logger } from "@chorus/platform";
import type { Express } from "express";
import { buildApp, redisConnections, type GatewayDeps } from "../apps/gateway/src/app.js";
import { loadGatewayConfig } from "../apps/gateway/src/config.js";
import { createGatewayDeps } from "../apps/gateway/src/dependencies.js";
import { testLogger } from "./logger.js";
import { deleteKeysWithPrefix, TEST_REDIS_URL } from "./redis.js";

export interface TestGateway {
  app: Express;
  deps: GatewayDeps;
  prefix: string;
  /** Creates a key and returns its secret. */
  createKey(options?: { scopes?: string[]; limits?: Partial<OperationLimits> }): Promise<string>;
  close(options?: { keepKeys?: boolean }): Promise<void>;
}

/** The real gateway app (as main.ts builds it) on a real Redis, under `prefix`, driven by supertest. */
export async function startTestGateway(prefix: string, env: Record<string, string> = {}, redisUrl = TEST_REDIS_URL, logger: Logger = testLogger("gateway")): Promise<TestGateway> {
  // Sentinel settings name Redis themselves (REDIS_URL with them is a config error).
  const config = loadGatewayConfig({ ...(env.REDIS_SENTINELS ? {} : { REDIS_URL: redisUrl }), REDIS_PREFIX: prefix, ...env });
  const deps = createGatewayDeps(config, logger);
  await Promise.all(redisConnections(deps).map((redis) => waitUntilReady(redis, 5000)));
  let counter = 0;
  return {
    app: buildApp(deps),
    deps,
    prefix,
    createKey: async ({ scopes = ["*"], limits = {} } = {}) => (await deps.apiKeys.create(`key-${++counter}`, scopes, limits)).secret,
    close: async ({ keepKeys = false } = {}) => {
      await deps.close();
      if (!keepKeys) await deleteKeysWithPrefix(redisUrl, prefix);
    },
  };
}
