import type { RedisOptions } from "ioredis";
import { ConfigError } from "../config/load-config.js";

export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

/** The Redis settings every process reads (a part of COMMON_ENV's config). */
export interface RedisSettings {
  REDIS_URL?: string;
  REDIS_SENTINELS?: string;
  REDIS_SENTINEL_MASTER?: string;
  REDIS_SENTINEL_PASSWORD?: string;
  REDIS_CLUSTER_NODES?: string;
  REDIS_USERNAME?: string;
  REDIS_PASSWORD?: string;
}

/**
 * Where the service's Redis is: one URL, a master that Sentinel names and follows across failovers, or a Redis Cluster.
 */
export type RedisTarget = { url: string } | { sentinel: SentinelTarget } | { cluster: ClusterTarget };

type HostPort = { host: string; port: number };

/** Some of a cluster's nodes (ioredis learns the rest, and follows slots as they move). */
export interface ClusterTarget {
  nodes: HostPort[];
  username?: string;
  password?: string;
}

export interface SentinelTarget {
  sentinels: HostPort[];
  master: string;
  sentinelPassword?: string;
  username?: string;
  password?: string;
}

/** Entries are named by position, not echoed: a URL with its password pasted here would be. */
function parseHostPorts(setting: string, list: string): HostPort[] {
  const entries = list.split(",");
  return entries.map((entry, index) => {
    const match = /^\s*(\[[^\]]+\]|[^:\s]+):(\d{1,5})\s*$/.exec(entry);
    if (!match?.[1] || !match[2])
      throw new ConfigError([
        `${setting}: entry ${index + 1} of ${entries.length} is not host:port (a comma list of host:port)`,
      ]);
    return { host: match[1].replace(/^\[|\]$/g, ""), port: Number(match[2]) };
  });
}

const TARGET_SETTINGS = ["REDIS_URL", "REDIS_SENTINELS", "REDIS_CLUSTER_NODES"] as const;

/** Username and password, from the settings that carry them apart from a URL. */
function credentialsOf(settings: RedisSettings): { username?: string; password?: string } {
  return {
    ...(settings.REDIS_USERNAME !== undefined && { username: settings.REDIS_USERNAME }),
    ...(settings.REDIS_PASSWORD !== undefined && { password: settings.REDIS_PASSWORD }),
  };
}

function sentinelTargetOf(settings: RedisSettings, sentinels: string): SentinelTarget {
  if (settings.REDIS_SENTINEL_MASTER === undefined)
    throw new ConfigError([
      "REDIS_SENTINELS needs REDIS_SENTINEL_MASTER (the master's name in the sentinels' configuration)",
    ]);
  const sentinel: SentinelTarget = {
    sentinels: parseHostPorts("REDIS_SENTINELS", sentinels),
    master: settings.REDIS_SENTINEL_MASTER,
    ...credentialsOf(settings),
  };
  if (settings.REDIS_SENTINEL_PASSWORD !== undefined) sentinel.sentinelPassword = settings.REDIS_SENTINEL_PASSWORD;
  return sentinel;
}

/**
 * The target the settings name, or a ConfigError naming what contradicts: REDIS_URL, Sentinel and
 * a cluster are three ways to say where Redis is, so two at once are refused rather than one
 * silently winning, and so is a setting that only means something with another one.
 */
export function redisTargetOf(settings: RedisSettings): RedisTarget {
  const named = TARGET_SETTINGS.filter((name) => settings[name] !== undefined);
  if (named.length > 1) throw new ConfigError([`${named.join(" and ")}: set only one (each says where Redis is)`]);
  const sentinelOnly = (["REDIS_SENTINEL_MASTER", "REDIS_SENTINEL_PASSWORD"] as const).filter(
    (name) => settings[name] !== undefined,
  );
  if (settings.REDIS_SENTINELS === undefined && sentinelOnly.length > 0)
    throw new ConfigError([`${sentinelOnly.join(", ")}: only used with REDIS_SENTINELS`]);
  const credentials = (["REDIS_USERNAME", "REDIS_PASSWORD"] as const).filter((name) => settings[name] !== undefined);
  if (named.length === 0 || named[0] === "REDIS_URL") {
    if (credentials.length > 0)
      throw new ConfigError([
        `${credentials.join(", ")}: only used with REDIS_SENTINELS or REDIS_CLUSTER_NODES (with REDIS_URL, put user:password in the URL)`,
      ]);
    return { url: settings.REDIS_URL ?? DEFAULT_REDIS_URL };
  }
  if (settings.REDIS_CLUSTER_NODES !== undefined)
    return {
      cluster: {
        nodes: parseHostPorts("REDIS_CLUSTER_NODES", settings.REDIS_CLUSTER_NODES),
        ...credentialsOf(settings),
      },
    };
  return { sentinel: sentinelTargetOf(settings, settings.REDIS_SENTINELS as string) };
}

/** The username and password the data nodes are connected with (ioredis options), of a Sentinel or a cluster target. */
export function credentialOptions(target: { username?: string; password?: string }): RedisOptions {
  return credentialsOf({ REDIS_USERNAME: target.username, REDIS_PASSWORD: target.password });
}

/**
 * ioredis options for a Sentinel target: `role: "master"` (the default), since every process writes.
 * A client moves to the new master when its connection to the old one closes (Redis closes its
 * clients when its role changes; a dead master's connections error) and it asks the sentinels
 * again. Not `failoverDetector`: its connections to the sentinels outlive a `quit()` (ioredis issue
 * #1362), which BullMQ uses to close its own, so a closed worker kept sockets open and reconnecting.
 */
export function sentinelOptions(target: SentinelTarget): RedisOptions {
  const options: RedisOptions = {
    sentinels: target.sentinels,
    name: target.master,
    role: "master",
    ...credentialOptions(target),
  };
  if (target.sentinelPassword !== undefined) options.sentinelPassword = target.sentinelPassword;
  return options;
}
