import type { RedisOptions } from "ioredis";
import { ConfigError } from "../config/load-config.js";

export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

/** The Redis settings every process reads (a part of COMMON_ENV's config). */
export interface RedisSettings {
  REDIS_URL?: string;
  REDIS_SENTINELS?: string;
  REDIS_SENTINEL_MASTER?: string;
  REDIS_SENTINEL_PASSWORD?: string;
  REDIS_USERNAME?: string;
  REDIS_PASSWORD?: string;
}

/** Where the service's Redis is: one URL, or a master that Sentinel names and follows across failovers. */
export type RedisTarget = { url: string } | { sentinel: SentinelTarget };

export interface SentinelTarget {
  sentinels: { host: string; port: number }[];
  master: string;
  sentinelPassword?: string;
  username?: string;
  password?: string;
}

function parseSentinels(list: string): { host: string; port: number }[] {
  return list.split(",").map((entry) => {
    const match = /^\s*(\[[^\]]+\]|[^:\s]+):(\d{1,5})\s*$/.exec(entry);
    if (!match?.[1] || !match[2]) throw new ConfigError([`REDIS_SENTINELS=${JSON.stringify(list)}: '${entry}' is not host:port`]);
    return { host: match[1].replace(/^\[|\]$/g, ""), port: Number(match[2]) };
  });
}

/**
 * The target the settings name, or a ConfigError naming what contradicts: REDIS_URL and Sentinel are
 * two ways to say where Redis is, so both at once is refused rather than one silently winning.
 */
export function redisTargetOf(settings: RedisSettings): RedisTarget {
  const { REDIS_URL, REDIS_SENTINELS, REDIS_SENTINEL_MASTER } = settings;
  const sentinelOnly = (["REDIS_SENTINEL_MASTER", "REDIS_SENTINEL_PASSWORD", "REDIS_USERNAME", "REDIS_PASSWORD"] as const).filter((name) => settings[name] !== undefined);
  if (REDIS_SENTINELS === undefined) {
    if (sentinelOnly.length > 0) throw new ConfigError([`${sentinelOnly.join(", ")}: only used with REDIS_SENTINELS (with REDIS_URL, put user:password in the URL)`]);
    return { url: REDIS_URL ?? DEFAULT_REDIS_URL };
  }
  if (REDIS_URL !== undefined) throw new ConfigError(["REDIS_URL and REDIS_SENTINELS are both set: use one (REDIS_SENTINELS finds the master itself)"]);
  if (REDIS_SENTINEL_MASTER === undefined) throw new ConfigError(["REDIS_SENTINELS needs REDIS_SENTINEL_MASTER (the master's name in the sentinels' configuration)"]);
  const sentinel: SentinelTarget = { sentinels: parseSentinels(REDIS_SENTINELS), master: REDIS_SENTINEL_MASTER };
  if (settings.REDIS_SENTINEL_PASSWORD !== undefined) sentinel.sentinelPassword = settings.REDIS_SENTINEL_PASSWORD;
  if (settings.REDIS_USERNAME !== undefined) sentinel.username = settings.REDIS_USERNAME;
  if (settings.REDIS_PASSWORD !== undefined) sentinel.password = settings.REDIS_PASSWORD;
  return { sentinel };
}

/**
 * ioredis options for a Sentinel target: `role: "master"` (the default), since every process writes.
 * A client moves to the new master when its connection to the old one closes (Redis closes its
 * clients when its role changes; a dead master's connections error) and it asks the sentinels
 * again. Not `failoverDetector`: its connections to the sentinels outlive a `quit()` (ioredis issue
 * #1362), which BullMQ uses to close its own, so a closed worker kept sockets open and reconnecting.
 */
export function sentinelOptions(target: SentinelTarget): RedisOptions {
  const options: RedisOptions = { sentinels: target.sentinels, name: target.master, role: "master" };
  if (target.sentinelPassword !== undefined) options.sentinelPassword = target.sentinelPassword;
  if (target.username !== undefined) options.username = target.username;
  if (target.password !== undefined) options.password = target.password;
  return options;
}
