import type { KeyLimits, PriorityTier } from "@chorus/contracts";
import { type Logger } from "@chorus/platform/logger";
import { waitUntilReady } from "@chorus/platform/redis";
import type { Express } from "express";
import {
  buildApp,
  createGatewayDeps,
  type GatewayConfig,
  type GatewayDeps,
  loadGatewayConfig,
  redisConnections,
} from "@chorus/gateway";
import { testLogger } from "./logger.js";
import { deleteKeysWithPrefix, TEST_REDIS, TEST_REDIS_ENV } from "./redis.js";

export interface TestGateway {
  app: Express;
  /** The configuration it was built with (for the HTTP server's settings: createHttpServer). */
  config: GatewayConfig;
  deps: GatewayDeps;
  prefix: string;
  /** Creates a key and returns its secret. */
  createKey(options?: { scopes?: string[]; limits?: KeyLimits; priority?: PriorityTier }): Promise<string>;
  /** Creates a key and returns it whole: its id, secret and webhook signing secret. */
  createKeyWithSecrets(options?: {
    scopes?: string[];
    limits?: KeyLimits;
    webhookHosts?: string[];
    priority?: PriorityTier;
  }): Promise<{ id: string; key: string; webhookSecret: string }>;
  close(options?: { keepKeys?: boolean }): Promise<void>;
}

/**
 * The real gateway app (as main.ts builds it) on a real Redis, under `prefix`, driven by supertest:
 * at `redisUrl` when given, else the tests' Redis (TEST_REDIS).
 */
export async function startTestGateway(
  prefix: string,
  env: Record<string, string> = {},
  redisUrl?: string,
  logger: Logger = testLogger("gateway"),
): Promise<TestGateway> {
  // Sentinel settings name Redis themselves (REDIS_URL with them is a config error).
  const where = env.REDIS_SENTINELS ? {} : redisUrl ? { REDIS_URL: redisUrl } : TEST_REDIS_ENV;
  const config = loadGatewayConfig({ ...where, REDIS_PREFIX: prefix, ...env });
  const deps = createGatewayDeps(config, logger);
  await Promise.all(redisConnections(deps).map((redis) => waitUntilReady(redis, 5000)));
  let counter = 0;
  const createKeyWithSecrets: TestGateway["createKeyWithSecrets"] = async (options = {}) => {
    const { scopes = ["*"], limits = {}, webhookHosts, priority } = options;
    const created = await deps.apiKeys.create(`key-${++counter}`, scopes, limits, {
      ...(webhookHosts && { webhookHosts }),
      ...(priority && { priority }),
    });
    return { id: created.record.id, key: created.secret, webhookSecret: created.webhookSecret };
  };
  return {
    app: buildApp(deps),
    config,
    deps,
    prefix,
    createKey: async (options) => (await createKeyWithSecrets(options)).key,
    createKeyWithSecrets,
    close: async ({ keepKeys = false } = {}) => {
      await deps.close();
      if (!keepKeys) await deleteKeysWithPrefix(redisUrl ?? TEST_REDIS, prefix);
    },
  };
}
