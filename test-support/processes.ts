import { spawn, type ChildProcess } from "node:child_process";
import { appNodeArgs } from "../apps/cli/src/local/app-command.js";
import { FIXTURE_MODEL } from "./fixtures.js";

export interface AppProcess {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

export function startApp(app: "gateway" | "worker", env: Record<string, string>): AppProcess {
  let output = "";
  // The compiled entry points (`npm test` builds first), with the Node flags they run with in production.
  const child = spawn(process.execPath, appNodeArgs(app), {
    // One llama.cpp thread, as in every test (TEST_LLAMA_THREADS in worker.ts says why).
    env: { PATH: process.env.PATH ?? "", LLM_MODEL: FIXTURE_MODEL, LLM_THREADS: "1", LOG_LEVEL: "info", LOG_FORMAT: "json", WORKER_HTTP_PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    output: () => output,
    exited,
    kill: async (signal = "SIGTERM") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Resolves once `pattern` shows in the process's output (bounded: a hang guard, not a timing). */
export async function waitForOutput(proc: AppProcess, pattern: RegExp, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(proc.output())) {
    if (Date.now() > deadline) throw new Error(`never saw ${pattern} in:\n${proc.output().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
