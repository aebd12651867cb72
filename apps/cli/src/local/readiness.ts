import { waitForHttp, type Child } from "./child-processes.js";

export interface ReadinessProbe {
  child: Child;
  /** The URL that answers 2xx once the child is ready. */
  url: string;
  /** What it is doing until then, for the waiting line. */
  meanwhile: string;
  /** The setting that moves the child to another port, for the message when another program holds this one. */
  portSetting: string;
}

export type Readiness = { ready: true } | { ready: false; foreign?: ReadinessProbe };

/**
 * Ready once every probe answers as this run's own process (`instanceId`); not ready as soon as a
 * child exits or another program answers on a child's port. Until then says every `intervalMs`
 * what it is still waiting for, so a long model download or load does not look like a hang.
 */
export async function waitUntilReady(probes: ReadinessProbe[], instanceId: string, say: (line: string) => void, intervalMs = 10_000): Promise<Readiness> {
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
