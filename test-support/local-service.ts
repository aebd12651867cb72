import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { startChild, type RunningChild } from "@chorus/local-runtime";
import { isAlive } from "./process-tree.js";
import { waitFor, waitForOutput } from "./wait-for.js";

export type { RunningChild } from "@chorus/local-runtime";

export const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));
const resolve = createRequire(import.meta.url).resolve;
/** `npm start`, `npm run keys` and `npm run migrate` without npm: the CLI package's compiled scripts. */
export const START_SCRIPT = resolve("@chorus/cli/start");
export const KEYS_SCRIPT = resolve("@chorus/cli/keys");
export const MIGRATE_SCRIPT = resolve("@chorus/cli/migrate");

/**
 * A worker that needs no model and no llama.cpp build (its engine is a server that is never asked),
 * so `npm start` comes up in seconds; with TMPDIR private, `npm start` and `npm run keys` record and
 * find their private Redis apart from a developer's own.
 */
export function quickServiceEnv(tmpDir: string, port: number): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    TMPDIR: tmpDir,
    PORT: String(port),
    WORKER_HTTP_PORT: "0",
    LLM_ENGINE: "openai-compatible",
    LLM_BASE_URL: "http://127.0.0.1:1/v1",
    LLM_MODEL: "never-asked",
    TTS_ENGINE: "none",
  };
}

/** Runs `command` in a process group of its own (as a terminal runs a foreground job), output kept. */
export function runInOwnGroup(command: string, args: string[], env: Record<string, string>): RunningChild {
  return startChild(command, command, { args, env, cwd: REPO_ROOT, ownGroup: true });
}

/** Resolves once `pattern` shows in the output (bounded: a hang guard, not a timing). */
export async function waitForText(run: RunningChild, pattern: RegExp, timeoutMs = 90_000): Promise<void> {
  await waitForOutput(run, pattern, timeoutMs);
}

export interface TreeProcess {
  pid: number;
  command: string;
}

/** `pid` and every process below it, with their command lines. */
export function processTree(pid: number): TreeProcess[] {
  const rows = spawnSync("ps", ["-eo", "pid=,ppid=,args="], { encoding: "utf8" }).stdout.split("\n");
  const all = rows
    .map((row) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(row))
    .filter((m) => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), command: m[3]! }));
  const tree: TreeProcess[] = [];
  const visit = (parent: number) => {
    for (const p of all.filter((q) => q.ppid === parent)) {
      tree.push({ pid: p.pid, command: p.command });
      visit(p.pid);
    }
  };
  const root = all.find((p) => p.pid === pid);
  if (root) tree.push({ pid, command: root.command });
  visit(pid);
  return tree;
}

/** The processes of `tree` still running after they had `timeoutMs` to go (a hang guard, not a timing). */
export async function survivors(tree: TreeProcess[], timeoutMs = 30_000): Promise<TreeProcess[]> {
  const gone = await waitFor("every process of the tree to go", () => !tree.some((p) => isAlive(p.pid)), {
    timeoutMs,
    intervalMs: 100,
  }).catch(() => false);
  if (gone) return [];
  const left = tree.filter((p) => isAlive(p.pid));
  for (const p of left) process.kill(p.pid, "SIGKILL");
  return left;
}
