import type { ChildProcess } from "node:child_process";
import type { Readable } from "node:stream";

export interface WaitOptions {
  /** A hang guard, not a speed assertion: generous, since these machines are shared and noisy. */
  timeoutMs?: number;
  /** Between probes. */
  intervalMs?: number;
  /** Gives up at once (with what it says) when this answers a reason: a process that exited, say. */
  stopWhen?: () => string | undefined;
}

/**
 * Asks `probe` until it answers a truthy value, and returns that value. A probe that throws counts as
 * "not yet" (a server still starting refuses connections); after `timeoutMs` it throws, naming `what`
 * and the probe's last error. The tests' one polling loop: each waits for a state it then checks,
 * never for a time.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | Promise<T>,
  options: WaitOptions = {},
): Promise<NonNullable<T>> {
  const { timeoutMs = 30_000, intervalMs = 50, stopWhen } = options;
  const giveUpAt = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    const stopped = stopWhen?.();
    if (stopped !== undefined) throw new Error(`gave up waiting for ${what}: ${stopped}`);
    if (Date.now() > giveUpAt) {
      const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : "";
      throw new Error(`gave up waiting for ${what} after ${timeoutMs} ms${cause}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

interface WithOutput {
  output(): string;
  process: ChildProcess;
}

/** True once the child has exited and its output streams have ended: nothing more will show. */
function finished({ process: child }: WithOutput): boolean {
  const ended = (stream: Readable | null) => stream === null || stream.readableEnded || stream.destroyed;
  return child.exitCode !== null && ended(child.stdout) && ended(child.stderr);
}

/** Waits until `pattern` shows in a child's output; gives up at once when the child has finished without it. */
export async function waitForOutput(child: WithOutput, pattern: RegExp, timeoutMs = 30_000): Promise<void> {
  await waitFor(`${String(pattern)} in the output`, () => pattern.test(child.output()), {
    timeoutMs,
    stopWhen: () => (finished(child) ? `it exited (code ${String(child.process.exitCode)})` : undefined),
  }).catch((error: unknown) => {
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}; its output ends:\n${child.output().slice(-3000)}`,
    );
  });
}
