import { spawn } from "node:child_process";

/** How far a build is: steps done of all (Ninja's `[12/153]`), or a percentage (Make's `[ 45%]`, total 100). */
export interface BuildProgress {
  done: number;
  total: number;
  percent?: true;
}

/** The progress a build tool prints at the start of a line, or null for any other line. */
export function buildProgressOf(line: string): BuildProgress | null {
  const ninja = /^\[(\d+)\/(\d+)\]/.exec(line);
  if (ninja) return { done: Number(ninja[1]), total: Number(ninja[2]) };
  const make = /^\[\s*(\d+)%\]/.exec(line);
  return make ? { done: Number(make[1]), total: 100, percent: true } : null;
}

export interface BuildStepOptions {
  /** Stops the step: its whole process group (the build tool and every compiler it started) is killed. */
  signal?: AbortSignal | undefined;
  onProgress?: ((progress: BuildProgress) => void) | undefined;
  /** The environment the tools run in (and are found on the PATH of); default this process's. */
  env?: NodeJS.ProcessEnv | undefined;
}

/**
 * Runs one build step in a process group of its own, so that stopping it stops every compiler it
 * started: a launcher stopped mid-build used to leave cmake compiling for 20 minutes. The output is
 * read for progress and shown only when the step fails (its last 8 KB).
 */
export function runBuildStep(command: string, args: string[], options: BuildStepOptions = {}): Promise<void> {
  const { signal, onProgress, env = process.env } = options;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], detached: true, env });
    let output = "";
    let line = "";
    const read = (chunk: Buffer) => {
      const text = chunk.toString();
      output = (output + text).slice(-8000);
      const lines = (line + text).split("\n");
      line = lines.pop() ?? "";
      for (const complete of lines) {
        const progress = buildProgressOf(complete);
        if (progress) onProgress?.(progress);
      }
    };
    const stop = () => killGroup(child.pid);
    signal?.addEventListener("abort", stop, { once: true });
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.on("error", reject);
    child.on("exit", (code) => {
      signal?.removeEventListener("abort", stop);
      if (signal?.aborted) reject(signal.reason as Error);
      else if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(" ")} exited with ${String(code)}:\n${output}`));
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/**
 * Logs how far a build is every `intervalMs` (the first time after one interval), with an estimate
 * of the time left from the pace so far: a build that says nothing for ten minutes looks hung.
 */
export function progressLog(
  what: string,
  log: (line: string) => void,
  intervalMs: number,
  now: () => number = Date.now,
): (progress: BuildProgress) => void {
  const started = now();
  let lastLogged = started;
  return ({ done, total, percent }) => {
    const time = now();
    if (time - lastLogged < intervalMs || done === 0) return;
    lastLogged = time;
    const leftMinutes = (((time - started) / done) * (total - done)) / 60_000;
    const share = percent ? `${done}%` : `step ${done} of ${total}`;
    log(`${what}: ${share}, about ${leftMinutes < 1 ? "a minute" : `${Math.ceil(leftMinutes)} min`} left`);
  };
}
