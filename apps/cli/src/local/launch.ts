import { INSTANCE_HEADER } from "@chorus/platform/process";
import { startApp, type AppName, type RunningChild } from "@chorus/local-runtime";

/**
 * Runs an app as a child process; its logs go straight to this terminal. In a process group of
 * its own, so that a terminal's Ctrl-C reaches only this launcher, which stops the apps in order
 * (gateways, workers, then Redis) instead of all at once with Redis dying first. The IPC channel
 * is the apps' leash: it closes when this process ends, even by `kill -9`, and the app then stops
 * as on SIGTERM (`stopWhenLauncherExits` in @chorus/platform).
 */
export function launchApp(app: AppName, label: string, env: NodeJS.ProcessEnv): RunningChild {
  return startApp(app, label, env, { stdout: "inherit", stderr: "inherit", ownGroup: true, ipc: true });
}

export interface ReadinessProbe {
  child: RunningChild;
  /** The URL that answers 2xx once the child is ready. */
  url: string;
  /** What it is doing until then, for the waiting line. */
  meanwhile: string;
  /** The setting that moves the child to another port, for the message when another program holds this one. */
  portSetting: string;
}

/** How a probe of a child's port ended: it answered ready, the child exited, or another program answered. */
export type ProbeOutcome = "ready" | "exited" | "foreign";

/**
 * Asks `url` until it answers 2xx with `instanceId` in its X-Chorus-Instance header. An answer
 * without that header comes from another program holding the port (or another npm start's
 * service): "foreign" at once, never "ready".
 */
export async function waitForHttp(url: string, child: RunningChild, instanceId: string): Promise<ProbeOutcome> {
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

export type Readiness = { ready: true } | { ready: false; foreign?: ReadinessProbe };

/**
 * Ready once every probe answers as this run's own process (`instanceId`); not ready as soon as a
 * child exits or another program answers on a child's port. Until then says every `intervalMs`
 * what it is still waiting for, so a long model download or load does not look like a hang.
 */
export async function waitUntilReady(
  probes: ReadinessProbe[],
  instanceId: string,
  say: (line: string) => void,
  intervalMs = 10_000,
): Promise<Readiness> {
  const pending = new Set(probes);
  const timer = setInterval(() => {
    for (const p of pending) say(`waiting for ${p.child.label} (${p.meanwhile})`);
  }, intervalMs);
  try {
    return await new Promise<Readiness>((resolve) => {
      for (const probe of probes) {
        void waitForHttp(probe.url, probe.child, instanceId).then((outcome) => {
          pending.delete(probe);
          if (outcome === "foreign") resolve({ ready: false, foreign: probe });
          else if (outcome === "exited") resolve({ ready: false });
          else if (pending.size === 0) resolve({ ready: true });
        });
      }
    });
  } finally {
    clearInterval(timer);
  }
}
