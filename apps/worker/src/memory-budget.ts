import { readFileSync } from "node:fs";
import { totalmem } from "node:os";
import { posix } from "node:path";

/** The memory this worker may use: its container's cgroup limit where one is set, else the machine's. */
export interface MemoryBudget {
  bytes: number;
  source: "cgroup v2" | "cgroup v1" | "host";
}

export interface MemoryBudgetSources {
  /** Where the cgroup file systems are mounted (default /sys/fs/cgroup). */
  cgroupRoot?: string;
  /** This process's cgroup membership (default /proc/self/cgroup). */
  selfCgroup?: string;
  /** The machine's memory (default os.totalmem()). */
  hostBytes?: number;
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

/** `path` and each cgroup above it, up to the hierarchy's root ("/a/b" -> "/a/b", "/a", "/"). */
function selfAndAncestors(path: string): string[] {
  const paths: string[] = [];
  for (let at = posix.normalize(`/${path}`); ; at = posix.dirname(at)) {
    paths.push(at);
    if (at === "/") return paths;
  }
}

/**
 * The lowest limit in `file` of this cgroup and its ancestors: each one caps everything below it.
 * A container often sees its own cgroup mounted as the root while /proc names the host's path,
 * so a directory that does not exist is skipped, not taken for "no limit".
 */
function lowestLimit(hierarchy: string, cgroupPath: string, file: string): number | null {
  let lowest: number | null = null;
  for (const at of selfAndAncestors(cgroupPath)) {
    const text = readOrNull(posix.join(hierarchy, at, file))?.trim();
    // "max" (v2) is no limit; v1 writes its no-limit as a number near 2^63, which the host's memory caps below.
    const value = text && /^\d+$/.test(text) ? Number(text) : null;
    if (value !== null && value > 0 && (lowest === null || value < lowest)) lowest = value;
  }
  return lowest;
}

/** The cgroup paths of this process, from /proc/self/cgroup: the v2 one ("0::/path") and v1's memory controller's. */
function cgroupPaths(selfCgroup: string): { v2: string | null; v1Memory: string | null } {
  let v2: string | null = null;
  let v1Memory: string | null = null;
  for (const line of (readOrNull(selfCgroup) ?? "").split("\n")) {
    const match = /^(\d+):([^:]*):(.*)$/.exec(line.trim());
    if (!match) continue;
    const [, id, controllers, path] = match as unknown as [string, string, string, string];
    if (id === "0" && controllers === "") v2 = path;
    else if (controllers.split(",").includes("memory")) v1Memory = path;
  }
  return { v2, v1Memory };
}

/** This worker's memory: its cgroup's limit (v2 memory.max, v1 memory.limit_in_bytes) when below the machine's. */
export function memoryBudget(sources: MemoryBudgetSources = {}): MemoryBudget {
  const root = sources.cgroupRoot ?? "/sys/fs/cgroup";
  const paths = cgroupPaths(sources.selfCgroup ?? "/proc/self/cgroup");
  const v1 =
    paths.v1Memory === null ? null : lowestLimit(posix.join(root, "memory"), paths.v1Memory, "memory.limit_in_bytes");
  const v2 = paths.v2 === null ? null : lowestLimit(root, paths.v2, "memory.max");
  let budget: MemoryBudget = { bytes: sources.hostBytes ?? totalmem(), source: "host" };
  if (v1 !== null && v1 < budget.bytes) budget = { bytes: v1, source: "cgroup v1" };
  if (v2 !== null && v2 < budget.bytes) budget = { bytes: v2, source: "cgroup v2" };
  return budget;
}

const MiB = 2 ** 20;

/** llama-server's own default (8192 MiB), but never more than a quarter of the worker's memory budget. */
export function defaultPromptCacheMiB(budgetBytes: number): number {
  return Math.min(8192, Math.floor(budgetBytes / 4 / MiB));
}

/** "2048 MiB (cgroup v2)": for the worker's start-up line. */
export function describeMemoryBudget(budget: MemoryBudget): string {
  return `${Math.floor(budget.bytes / MiB)} MiB (${budget.source === "host" ? "this machine's memory" : `${budget.source} limit`})`;
}
