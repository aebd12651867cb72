import { startChild, startNodeScript, type RunningChild } from "@chorus/local-runtime";

export { whileAlive } from "@chorus/local-runtime";

/** A process the bench started; every one is registered so that nothing outlives the bench. */
export type BenchChild = RunningChild;

export interface NodeChildOptions {
  args?: string[];
  env?: NodeJS.ProcessEnv;
  nodeArgs?: readonly string[];
  /** Open an IPC channel (child_process.fork): the bench's own helper processes report through it. */
  ipc?: boolean;
  /** Keep stdout for the caller to read (otherwise it goes to /dev/null). */
  captureStdout?: boolean;
}

/** The end of a child's stderr (and kept stdout) is all an error message needs. */
const KEEP_CHARS = 4000;
const live = new Set<BenchChild>();
const history: Array<{ label: string; pid: number }> = [];

/** Every process started so far (running or not), for the closing log line. */
export function startedProcesses(): ReadonlyArray<{ label: string; pid: number }> {
  return history;
}

/** Registers a process started elsewhere (a private Redis) with those the bench stops at the end. */
export function track(child: BenchChild): BenchChild {
  live.add(child);
  history.push({ label: child.label, pid: child.pid });
  void child.exited.then(() => live.delete(child));
  return child;
}

/** Runs a Node script as a separate process (its own event loop and its own core share). */
export function startNode(label: string, script: string, options: NodeChildOptions = {}): BenchChild {
  const { captureStdout, ...rest } = options;
  return track(
    startNodeScript(label, script, { ...rest, stdout: captureStdout ? "keep" : "ignore", keepChars: KEEP_CHARS }),
  );
}

export function startCommand(label: string, command: string, args: string[], captureStdout = false): BenchChild {
  return track(startChild(label, command, { args, stdout: captureStdout ? "keep" : "ignore", keepChars: KEEP_CHARS }));
}

/** Stops every process the bench started that is still running (on success, failure or signal). */
export async function stopAllChildren(graceMs = 10_000): Promise<void> {
  await Promise.all([...live].map((child) => child.stop(graceMs)));
}
