import { fork, spawn, type ChildProcess } from "node:child_process";

/** A process the bench started; every one is registered so that nothing outlives the bench. */
export interface BenchChild {
  label: string;
  pid: number;
  process: ChildProcess;
  exited: Promise<number | null>;
  /** The last lines the process wrote to stderr, for error messages. */
  stderrTail(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

export interface NodeChildOptions {
  args?: string[];
  env?: NodeJS.ProcessEnv;
  nodeArgs?: string[];
  /** Open an IPC channel (child_process.fork): the bench's own helper processes report through it. */
  ipc?: boolean;
  /** Keep stdout for the caller to read (otherwise it goes to /dev/null). */
  captureStdout?: boolean;
}

const TAIL_CHARS = 4000;
const live = new Set<BenchChild>();
const history: Array<{ label: string; pid: number }> = [];

/** Every process started so far (running or not), for the closing log line. */
export function startedProcesses(): ReadonlyArray<{ label: string; pid: number }> {
  return history;
}

function track(label: string, child: ChildProcess): BenchChild {
  if (child.pid === undefined) {
    child.on("error", () => undefined);
    throw new Error(`could not start ${label} (is it installed and on PATH?)`);
  }
  let tail = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    tail = (tail + chunk).slice(-TAIL_CHARS);
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code, signal) => resolve(code ?? (signal ? -1 : null)));
    child.once("error", () => resolve(-1));
  });
  const entry: BenchChild = {
    label,
    pid: child.pid,
    process: child,
    exited,
    stderrTail: () => tail.trim(),
    stop: async (graceMs = 10_000) => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
  live.add(entry);
  history.push({ label, pid: entry.pid });
  void exited.then(() => live.delete(entry));
  return entry;
}

/** Runs a Node script as a separate process (its own event loop and its own core share). */
export function startNode(label: string, script: string, options: NodeChildOptions = {}): BenchChild {
  const stdout = options.captureStdout ? "pipe" : "ignore";
  const env = options.env ?? process.env;
  const execArgv = options.nodeArgs ?? [];
  const args = options.args ?? [];
  const child = options.ipc
    ? fork(script, args, { env, execArgv, stdio: ["ignore", stdout, "pipe", "ipc"] })
    : spawn(process.execPath, [...execArgv, script, ...args], { env, stdio: ["ignore", stdout, "pipe"] });
  return track(label, child);
}

export function startCommand(label: string, command: string, args: string[], captureStdout = false): BenchChild {
  return track(label, spawn(command, args, { stdio: ["ignore", captureStdout ? "pipe" : "ignore", "pipe"] }));
}

/** Stops every process the bench started that is still running (on success, failure or signal). */
export async function stopAllChildren(graceMs = 10_000): Promise<void> {
  await Promise.all([...live].map((child) => child.stop(graceMs)));
}

/** Rejects when `child` exits before `promise` settles, naming it and quoting its stderr. */
export async function whileAlive<T>(child: BenchChild, promise: Promise<T>): Promise<T> {
  const died = child.exited.then((code) => {
    throw new Error(`${child.label} exited (code ${String(code)}) early:\n${child.stderrTail()}`);
  });
  died.catch(() => undefined);
  return Promise.race([promise, died]);
}
