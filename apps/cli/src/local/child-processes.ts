import { spawn, type ChildProcess } from "node:child_process";
import { INSTANCE_HEADER } from "@chorus/platform";
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

/** How a probe of a child's port ended: it answered ready, the child exited, or another program answered. */
export type ProbeOutcome = "ready" | "exited" | "foreign";

/**
 * Asks `url` until it answers 2xx with `instanceId` in its X-Chorus-Instance header. An answer
 * without that header comes from another program holding the port (or another npm start's
 * service): "foreign" at once, never "ready".
 */
export async function waitForHttp(url: string, child: Child, instanceId: string): Promise<ProbeOutcome> {
  let exited = false;
  void child.exited.then(() => (exited = true));
  while (!exited) {
    const answer = await fetch(url).catch(() => null);
    if (answer) {
      await answer.body?.cancel();
      if (answer.headers.get(INSTANCE_HEADER) !== instanceId) return "foreign";
      if (answer.ok) return "ready";
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return "exited";
}
