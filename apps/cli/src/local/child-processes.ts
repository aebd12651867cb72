import { spawn, type ChildProcess } from "node:child_process";
import { appEnv, appNodeArgs, type AppName } from "./app-command.js";

export interface Child {
  label: string;
  process: ChildProcess;
  exited: Promise<number | null>;
}

/** Runs an app as a child process; its logs go straight to this terminal. */
export function startChild(app: AppName, label: string, env: NodeJS.ProcessEnv): Child {
  const child = spawn(process.execPath, appNodeArgs(app), { env: appEnv(app, env), stdio: ["ignore", "inherit", "inherit"] });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { label, process: child, exited };
}

/** SIGTERM, then SIGKILL for whatever has not exited after `graceMs`. */
export async function stopChildren(children: Child[], graceMs: number): Promise<void> {
  for (const c of children) if (c.process.exitCode === null) c.process.kill("SIGTERM");
  const timer = setTimeout(() => children.forEach((c) => c.process.exitCode === null && c.process.kill("SIGKILL")), graceMs);
  await Promise.all(children.map((c) => c.exited));
  clearTimeout(timer);
}

export async function waitForHttp(url: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await fetch(url).then((r) => r.ok, () => false);
    if (ok) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}
