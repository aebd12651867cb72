import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { sleep } from "./fixtures.js";

export const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));
export const START_SCRIPT = fileURLToPath(new URL("../apps/cli/dist/start.js", import.meta.url));
export const KEYS_SCRIPT = fileURLToPath(new URL("../apps/cli/dist/keys.js", import.meta.url));

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

export interface RunningCommand {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Runs `command` in a process group of its own (as a terminal runs a foreground job), output captured. */
export function runInOwnGroup(command: string, args: string[], env: Record<string, string>): RunningCommand {
  const child = spawn(command, args, { cwd: REPO_ROOT, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Resolves once `pattern` shows in the output (bounded: a hang guard, not a timing). */
export async function waitForText(run: RunningCommand, pattern: RegExp, timeoutMs = 90_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !pattern.test(run.output()); await sleep(100)) {
    if (Date.now() > deadline || run.child.exitCode !== null) throw new Error(`never saw ${pattern} in:\n${run.output().slice(-3000)}`);
  }
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

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** The processes of `tree` still running after they had `timeoutMs` to go (a hang guard, not a timing). */
export async function survivors(tree: TreeProcess[], timeoutMs = 30_000): Promise<TreeProcess[]> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(100)) {
    if (!tree.some((p) => isRunning(p.pid))) return [];
  }
  const left = tree.filter((p) => isRunning(p.pid));
  for (const p of left) process.kill(p.pid, "SIGKILL");
  return left;
}
