import { fork, spawn, type ChildProcess, type StdioOptions } from "node:child_process";

/**
 * Where a child's stdout or stderr goes: this terminal, kept for `output()` (and readable on the stream), or nowhere.
 */
export type OutputChoice = "inherit" | "keep" | "ignore";

export interface ChildOptions {
  args?: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Default "keep" for both: a child's last words are what an error message needs. */
  stdout?: OutputChoice;
  stderr?: OutputChoice;
  /** Characters of output kept (the last ones); default 1 MB. */
  keepChars?: number;
  /**
   * A process group of its own, as a terminal runs a foreground job: a terminal's Ctrl-C then
   * reaches only the launcher, which stops its children in order.
   */
  ownGroup?: boolean;
  /** An IPC channel: the apps' leash (`stopWhenLauncherExits`) and the bench's helpers' reports. */
  ipc?: boolean;
  /**
   * Runs `command` with stdin a pipe that stays open while this process lives (the leash of `run-while-parent-lives`).
   */
  stdinPipe?: boolean;
}

/** A process this one started: what every launcher here (npm start, the bench, the tests) holds of it. */
export interface RunningChild {
  label: string;
  pid: number;
  process: ChildProcess;
  /** The exit code; null when a signal ended it or it could not run. */
  exited: Promise<number | null>;
  /** What it wrote to the streams kept (stdout and stderr interleaved as they came). */
  output: () => string;
  /** SIGTERM, then SIGKILL after `graceMs` (default 10 s); resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>;
  /** Sends `signal` (default SIGTERM) unless it has exited; resolves with its exit code once it has. */
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

const DEFAULT_KEEP_CHARS = 1_000_000;

function stdioFor(options: ChildOptions): StdioOptions {
  const stream = (choice: OutputChoice = "keep") => (choice === "keep" ? "pipe" : choice);
  const stdio: StdioOptions = [options.stdinPipe ? "pipe" : "ignore", stream(options.stdout), stream(options.stderr)];
  return options.ipc ? [...stdio, "ipc"] : stdio;
}

/** Runs `command` with `args`; throws at once when it cannot be started (not installed, not on PATH). */
export function startChild(label: string, command: string, options: ChildOptions = {}): RunningChild {
  const child = spawn(command, options.args ?? [], {
    env: options.env ?? process.env,
    cwd: options.cwd,
    detached: options.ownGroup === true,
    stdio: stdioFor(options),
  });
  return track(label, child, options);
}

/**
 * Runs a Node script in a Node process of its own (`nodeArgs` before the script), like `node [nodeArgs] script [args]`.
 */
export function startNodeScript(
  label: string,
  script: string,
  options: ChildOptions & { nodeArgs?: readonly string[] } = {},
): RunningChild {
  const execArgv = [...(options.nodeArgs ?? [])];
  const args = options.args ?? [];
  const common = {
    env: options.env ?? process.env,
    cwd: options.cwd,
    detached: options.ownGroup === true,
    stdio: stdioFor(options),
  };
  // fork() when there is an IPC channel: it sets up Node's serialization on both ends.
  const child = options.ipc
    ? fork(script, args, { ...common, execArgv })
    : spawn(process.execPath, [...execArgv, script, ...args], common);
  return track(label, child, options);
}

function track(label: string, child: ChildProcess, options: ChildOptions): RunningChild {
  if (child.pid === undefined) {
    child.on("error", () => undefined);
    throw new Error(`could not start ${label} (${child.spawnfile}: is it installed and on PATH?)`);
  }
  const keepChars = options.keepChars ?? DEFAULT_KEEP_CHARS;
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-keepChars);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => resolve(code));
    child.once("error", () => resolve(null));
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  const kill = async (signal: NodeJS.Signals = "SIGTERM") => {
    if (running()) child.kill(signal);
    return exited;
  };
  const stop = async (graceMs = 10_000) => {
    if (running()) child.kill("SIGTERM");
    const timer = setTimeout(() => running() && child.kill("SIGKILL"), graceMs);
    await exited;
    clearTimeout(timer);
  };
  return { label, pid: child.pid, process: child, exited, output: () => output, stop, kill };
}

/** Stops `children` together: SIGTERM to all, SIGKILL to whatever has not exited after `graceMs`. */
export async function stopChildren(children: readonly RunningChild[], graceMs: number): Promise<void> {
  await Promise.all(children.map((child) => child.stop(graceMs)));
}

/** How the child ended, for messages: its exit code or the signal. */
export function describeExit(child: RunningChild): string {
  const { exitCode, signalCode } = child.process;
  return signalCode ? `signal ${signalCode}` : `code ${String(exitCode)}`;
}

/** Rejects when `child` exits before `promise` settles, naming it and quoting the end of its output. */
export async function whileAlive<T>(child: RunningChild, promise: Promise<T>): Promise<T> {
  const died = child.exited.then(() => {
    throw new Error(`${child.label} exited (${describeExit(child)}) early:\n${child.output().slice(-4000).trim()}`);
  });
  died.catch(() => undefined);
  return Promise.race([promise, died]);
}
