import { readdirSync, readFileSync } from "node:fs";
import { waitFor } from "./wait-for.js";

/** Direct children of a process (Linux /proc), for tests that check nothing is left behind. */
export function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

/** True while the process exists and is not a zombie waiting to be reaped. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Waits (a hang guard, not a speed assertion) until the process is gone; true when it went. */
export async function waitUntilGone(pid: number, timeoutMs = 30_000): Promise<boolean> {
  return waitFor(`process ${pid} to go`, () => !isAlive(pid), { timeoutMs }).catch(() => false);
}
