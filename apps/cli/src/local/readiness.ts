import { waitForHttp, type Child } from "./child-processes.js";

export interface ReadinessProbe {
  child: Child;
  /** The URL that answers 2xx once the child is ready. */
  url: string;
  /** What it is doing until then, for the waiting line. */
  meanwhile: string;
}

/**
 * Resolves true once every probe answers, false as soon as a child exits. Until then says every
 * `intervalMs` what it is still waiting for, so a long model download or load does not look like a hang.
 */
export async function waitUntilReady(probes: ReadinessProbe[], say: (line: string) => void, intervalMs = 10_000): Promise<boolean> {
  const pending = new Set(probes);
  const timer = setInterval(() => {
    for (const p of pending) say(`waiting for ${p.child.label} (${p.meanwhile})`);
  }, intervalMs);
  try {
    const results = await Promise.all(
      probes.map(async (p) => {
        const ready = await waitForHttp(p.url, p.child);
        pending.delete(p);
        return ready;
      }),
    );
    return results.every(Boolean);
  } finally {
    clearInterval(timer);
  }
}
