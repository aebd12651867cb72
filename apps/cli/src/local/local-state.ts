import { createHash } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The checkout this launcher runs from (apps/cli/{src,dist}/local/ is four levels below it). */
const THIS_CHECKOUT = fileURLToPath(new URL("../../../../", import.meta.url));

/**
 * When `npm start` runs a private redis-server, it records the URL (and the key prefix) in a file
 * so that `npm run keys` (a separate process) finds the same Redis without the user copying a port
 * around. One file per checkout, named after its path: two clones each running `npm start` each
 * find their own, and keys of one never go to the other's Redis.
 */
export function localStateFile(checkout = THIS_CHECKOUT, dir = tmpdir()): string {
  const id = createHash("sha256").update(resolve(checkout)).digest("hex").slice(0, 16);
  return join(dir, `chorus-local-redis-${id}.json`);
}

export interface LocalRedis {
  redisUrl: string;
  prefix: string;
}

interface LocalState extends LocalRedis {
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

export function saveLocalRedis(local: LocalRedis, file = localStateFile()): void {
  writeFileSync(file, JSON.stringify({ ...local, pid: process.pid } satisfies LocalState), { mode: 0o600 });
}

export function clearLocalRedis(file = localStateFile()): void {
  rmSync(file, { force: true });
}

/** The private Redis of a running `npm start` of this checkout, if there is one. */
export function runningLocalRedis(file = localStateFile()): LocalRedis | null {
  try {
    const state = JSON.parse(readFileSync(file, "utf8")) as LocalState;
    return isAlive(state.pid) ? { redisUrl: state.redisUrl, prefix: state.prefix } : null;
  } catch {
    return null;
  }
}
