import { spawn, type ChildProcess } from "node:child_process";
import { appEnv, appNodeArgs, type AppName } from "./app-command.js";

export interface Child {
  label: string;
  process: ChildProcess;
  exited: Promise<number | null>;
}

/**
 * Runs an app as a child process; its logs go straight to this terminal. In a process group of
 * its own, so that a terminal's Ctrl-C reaches only this launcher, which stops the apps in order
 * (gateways, workers, then Redis) instead of all at once with Redis dying first. The IPC channel
 * is the apps' leash: it closes when this process ends, even by `kill -9`, and the app then stops
 * as on SIGTERM (`stopWhenLauncherExits` in @chorus/platform).
 */
export function startChild(app: AppName, label: string, env: NodeJS.ProcessEnv): Child {
  const child = spawn(process.execPath, appNodeArgs(app), { env: appEnv(app, env), detached: true, stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { label, process: child, exited };
}

/** SIGTERM, then SIGKILL for whatever has not exited after `graceMs`. */
export async function stopChildren(children: Child[], graceMs: number): Promise<void> {
  const running = (c: Child) => c.process.exitCode === null && c.process.signalCode === null;
  for (const c of children) if (running(c)) c.process.kill("SIGTERM");
  const timer = setTimeout(() => children.forEach((c) => running(c) && c.process.kill("SIGKILL")), graceMs);
  await Promise.all(children.map((c) => c.exited));
  clearTimeout(timer);
}

/** True once `url` answers 2xx; false if `child` exits first. */
export async function waitForHttp(url: string, child: Child): Promise<boolean> {
  let exited = false;
  void child.exited.then(() => (exited = true));
  while (!exited) {
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}
