import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { isAlive } from "./local-state.js";
import { DEFAULT_REDIS_URL, redisAnswers, startPrivateRedis, type PrivateRedis } from "@chorus/local-runtime";

/**
 * Where `npm start`'s private redis-server keeps its data unless told otherwise: the XDG state
 * directory, not the cache, because it holds what a user would lose by deleting it (API keys, jobs,
 * records) and cannot download again.
 */
export function defaultRedisDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_STATE_HOME || join(homedir(), ".local", "state"), "chorus", "redis");
}

export interface RedisChoice {
  url: string;
  /** Set when this process started the Redis: it stops it last. */
  owned?: PrivateRedis;
}

export interface RedisWishes {
  /** Start a private redis-server even when one answers on 127.0.0.1:6379. */
  privateRedis: boolean;
  /** The private server's data directory, or "none" for a throwaway server that keeps nothing. */
  dataDir: string;
}

/**
 * Append-only file in `dir`, fsync'd every second (Redis's default): a stop, a crash or a reboot
 * loses at most the last second. The log goes to a file beside the data, where a failure to load
 * it can be read.
 */
function persistenceArgs(dir: string): string[] {
  return ["--dir", dir, "--appendonly", "yes", "--logfile", join(dir, "redis.log")];
}

/**
 * Two redis-servers appending to one file would corrupt it: one `npm start` per data directory.
 * Returns the release of the claim (a claim left by a launcher killed outright names a dead pid and is taken over).
 */
function claimDataDir(dir: string): () => void {
  const claim = join(dir, "npm-start.pid");
  let holder = 0;
  try {
    holder = Number(readFileSync(claim, "utf8"));
  } catch {
    // no claim yet
  }
  if (holder > 0 && holder !== process.pid && isAlive(holder)) {
    throw new Error(
      `${dir} is in use by another npm start (pid ${holder}, see ${claim}): stop that one, or give this one another --redis-data`,
    );
  }
  writeFileSync(claim, String(process.pid));
  return () => rmSync(claim, { force: true });
}

async function startOwnRedis(dataDir: string, say: (line: string) => void): Promise<PrivateRedis> {
  if (dataDir === "none") {
    const redis = await startPrivateRedis([], { ownGroup: true });
    say(`started a private redis-server at ${redis.url} that keeps nothing (--redis-data none)`);
    return redis;
  }
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const release = claimDataDir(dir);
  const redis = await startPrivateRedis(persistenceArgs(dir), { ownGroup: true }).catch((error: unknown) => {
    release();
    throw new Error(`${error instanceof Error ? error.message : String(error)}; its log: ${join(dir, "redis.log")}`);
  });
  say(
    `started a private redis-server at ${redis.url}; its data (API keys, jobs) is kept in ${dir} (--redis-data DIR or CHORUS_REDIS_DATA for another place, none for a throwaway)`,
  );
  return { ...redis, stop: () => redis.stop().then(release) };
}

/** A private redis-server when asked; else REDIS_URL if set; else 127.0.0.1:6379 if it answers; else a private one. */
export async function chooseRedis(wishes: RedisWishes, say: (line: string) => void): Promise<RedisChoice> {
  if (!wishes.privateRedis && process.env.REDIS_URL) return { url: process.env.REDIS_URL };
  if (!wishes.privateRedis && (await redisAnswers(DEFAULT_REDIS_URL))) return { url: DEFAULT_REDIS_URL };
  if (!wishes.privateRedis)
    say(
      "no Redis on 127.0.0.1:6379 and REDIS_URL is unset: starting a private redis-server (it stops with this process)",
    );
  const owned = await startOwnRedis(wishes.dataDir, say);
  return { url: owned.url, owned };
}
