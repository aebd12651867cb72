import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** Whether a process with this id runs (a signal 0 reaches it, or it exists under another user). */
export function isRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** An empty lock file is one being written; one that stays empty this many checks was left by a crash. */
const EMPTY_LOCK_CHECKS = 10;

/**
 * Runs `body` while holding `<dir>/.<name>.lock`, one process at a time: several `npm start`s on a new
 * machine would otherwise each compile llama.cpp at once (five builds were seen sharing two cores).
 * A lock whose process is gone is taken over; a waiter says once whom it waits for.
 */
export async function withBuildLock<T>(
  dir: string,
  name: string,
  log: (line: string) => void,
  body: () => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  const lock = join(dir, `.${name}.lock`);
  let toldWaiting = false;
  let emptyChecks = 0;
  for (;;) {
    signal?.throwIfAborted();
    if (await createExclusive(lock, String(process.pid))) break;
    const holder = (await readFile(lock, "utf8").catch(() => "")).trim();
    const stale = holder === "" ? ++emptyChecks >= EMPTY_LOCK_CHECKS : !isRunning(Number(holder));
    if (stale) {
      await rm(lock, { force: true });
      continue;
    }
    if (!toldWaiting && holder !== "") log(`${name}: another build (process ${holder}) is under way; waiting for it`);
    toldWaiting ||= holder !== "";
    await sleep(holder === "" ? 100 : 1000, undefined, signal ? { signal } : {});
  }
  try {
    return await body();
  } finally {
    await rm(lock, { force: true });
  }
}

async function createExclusive(path: string, content: string): Promise<boolean> {
  try {
    await writeFile(path, content, { flag: "wx" });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

/** Removes `<dir>/.<name>.<pid>.tmp` scratch folders whose build process is gone (stopped by kill -9, say). */
export async function removeAbandonedScratch(dir: string, name: string): Promise<void> {
  const pattern = new RegExp(`^\\.${name}\\.(\\d+)\\.tmp$`);
  for (const entry of await readdir(dir).catch(() => [])) {
    const pid = pattern.exec(entry)?.[1];
    if (pid !== undefined && !isRunning(Number(pid))) await rm(join(dir, entry), { recursive: true, force: true });
  }
}
