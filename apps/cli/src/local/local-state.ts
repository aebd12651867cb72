import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * When `npm start` runs a private redis-server, it records the URL here so that `npm run keys`
 * (a separate process) finds the same Redis without the user copying a port around.
 */
const STATE_FILE = join(tmpdir(), "chorus-local-redis.json");

interface LocalState {
  redisUrl: string;
  pid: number;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function saveLocalRedis(redisUrl: string): void {
  writeFileSync(STATE_FILE, JSON.stringify({ redisUrl, pid: process.pid } satisfies LocalState));
}

export function clearLocalRedis(): void {
  rmSync(STATE_FILE, { force: true });
}

/** The private Redis of a running `npm start`, if there is one. */
export function runningLocalRedis(): string | null {
  try {
    const state = JSON.parse(readFileSync(STATE_FILE, "utf8")) as LocalState;
    return isAlive(state.pid) ? state.redisUrl : null;
  } catch {
    return null;
  }
}
