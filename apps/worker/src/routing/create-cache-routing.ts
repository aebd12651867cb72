import type { Logger } from "@chorus/platform/logger";
import type { RedisClient, RedisKeys } from "@chorus/platform/redis";
import { CacheRouting, type RoutingDecision } from "./cache-routing.js";
import { RoutingStore } from "./routing-store.js";

export interface CacheRoutingSettings {
  workerId: string;
  slots: number;
  /** ROUTE_MAX_WAIT_MS; 0: this worker hands no job over (it still honours the claims of jobs others handed). */
  maxWaitMs: number;
  /** ROUTE_PREFIX_TTL_SECONDS. */
  prefixTtlSeconds: number;
  /** JOB_TIME_LIMIT_MS: a claim outlives every attempt of a job. */
  jobTimeLimitMs: number;
}

/** A worker is taken for dead 3 s after its last heartbeat: its hand-over jobs then go on elsewhere. */
const HEARTBEAT_MS = 1000;
/**
 * A running copy's lease outlives two missed renewals; the watcher waits as long again once it finds it
 * lapsed, so a dead worker's routed job is taken over within about 2 × 3 s + 1 s.
 */
const LEASE_TTL_MS = 3 * HEARTBEAT_MS;

/** Cache-aware routing for one worker. */
export function createCacheRouting(
  settings: CacheRoutingSettings,
  deps: {
    connection: RedisClient;
    keys: RedisKeys;
    logger: Logger;
    recordRouting?: (decision: RoutingDecision) => void;
  },
): CacheRouting {
  const store = new RoutingStore(deps.connection, deps.keys, {
    prefixTtlMs: settings.prefixTtlSeconds * 1000,
    heartbeatTtlMs: 3 * HEARTBEAT_MS,
    claimTtlMs: Math.max(4 * settings.jobTimeLimitMs, 600_000),
    leaseTtlMs: LEASE_TTL_MS,
  });
  return new CacheRouting(
    { ...deps, store },
    {
      workerId: settings.workerId,
      slots: settings.slots,
      maxWaitMs: settings.maxWaitMs,
      watchIntervalMs: HEARTBEAT_MS,
      heartbeatMs: HEARTBEAT_MS,
      leaseTtlMs: LEASE_TTL_MS,
    },
  );
}
