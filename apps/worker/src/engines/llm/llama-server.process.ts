import { spawn, type ChildProcessByStdio } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import type { Readable, Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "@chorus/platform/logger";
import { createSlotStateDirectory } from "./slot-state-directory.js";

export interface LlamaServerSettings {
  binary: string;
  modelPath: string;
  threads: number;
  /** Parallel slots (-np), one per concurrent job. */
  slots: number;
  /** Context tokens per slot (llama-server caps it at the model's training context). */
  contextPerSlot: number;
  /**
   * MiB for prompts kept beyond the slots, per API key (SlotStates, in files of `stateDirectory`): a
   * conversation whose slot another took is restored from there instead of read again. 0: off;
   * unset: 8192. llama-server's own --cache-ram is always off: it would restore another key's prompt.
   */
  promptCacheMiB?: number | undefined;
  gpu: "auto" | false;
  logger: Logger;
  /** Longest wait for the model to load (a large model on a slow disk takes a while). */
  startTimeoutMs?: number;
  /** Whether the CPU has Intel AMX (unset: read from /proc/cpuinfo); such a CPU gets `--no-repack` (see cpuHasAmx). */
  cpuHasAmx?: boolean;
}

/**
 * Whether the CPU reports Intel AMX (Sapphire Rapids and later). On such a CPU a native build puts a
 * quantized model's weights in ggml's AMX buffer, and llama-server then dies of a segfault in
 * ggml_backend_amx_mul_mat at its first decode (a ggml bug reported upstream, with Q4_K_M too; seen
 * here on a Q8_0 model in a 2-core VM). `--no-repack` keeps the weights in the plain CPU buffer: the server
 * runs, on AVX-512 kernels.
 */
export function cpuHasAmx(cpuinfo = readCpuinfo()): boolean {
  return /^flags\s*:.*\bamx_int8\b/m.test(cpuinfo);
}

function readCpuinfo(): string {
  return existsSync("/proc/cpuinfo") ? readFileSync("/proc/cpuinfo", "utf8") : "";
}

/**
 * Starts llama-server through a small shell guard: the guard holds the read end of a pipe whose
 * write end only this process has (fd 3 is a copy of its stdin), and stops the server when that
 * pipe closes, so a worker that dies, even by SIGKILL, never leaves a llama-server behind. Closing
 * the pipe is also how the worker stops it on purpose. A server that ignores SIGTERM gets SIGKILL
 * 10 s later; the watcher writes to none of the worker's pipes (so none stays open after a stop)
 * and the guard reaps it before it exits.
 */
const GUARD = `exec 3<&0
"$@" </dev/null 3<&- & server=$!
(read -r _ <&3; kill -TERM "$server"; for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$server" || exit; sleep 1; done; kill -KILL "$server") >/dev/null 2>&1 & watcher=$!
exec 3<&-
wait "$server"; status=$?
kill "$watcher" 2>/dev/null; wait "$watcher" 2>/dev/null
exit "$status"`;

/** llama-server's command line: the model, threads and slots, on a loopback port, with the worker's own settings. */
export function serverArgs(settings: LlamaServerSettings, port: number, stateDirectory: string): string[] {
  const { modelPath, threads, slots, contextPerSlot, gpu } = settings;
  const args = ["-m", modelPath, "-t", String(threads), "-tb", String(threads), "-np", String(slots)];
  args.push("-c", String(contextPerSlot * slots));
  // The slots share nothing: each holds its own conversation's cache (as in the in-process engine).
  args.push("--no-kv-unified", "--host", "127.0.0.1", "--port", String(port), "--no-webui");
  if (gpu === false) args.push("--n-gpu-layers", "0");
  // Its host cache restores the best match of any key's prompts: SlotStates keeps them per key instead.
  args.push("--cache-ram", "0", "--slot-save-path", `${stateDirectory}/`);
  if (settings.cpuHasAmx ?? cpuHasAmx()) args.push("--no-repack");
  return args;
}

type GuardedChild = ChildProcessByStdio<Writable, Readable, Readable>;

const LISTENING = /listening on http:\/\/127\.0\.0\.1:(\d+)/;
const OUTPUT_KEPT = 16_000;

/**
 * llama.cpp's own server as a child of the worker, on a loopback port: started at engine load,
 * restarted (on the same port) if it dies, stopped with the worker. Its output is kept only as a
 * tail for error messages.
 */
export class LlamaServerProcess {
  private child: GuardedChild | null = null;
  private output = "";
  /** Aborted by stop(): ends a relaunch's back-off and any launch under way. */
  private readonly stopped = new AbortController();
  private restarts = 0;
  /** Settles when the current launch is healthy: a job that lost the server waits on it. */
  private healthy: Promise<void> = Promise.resolve();

  private constructor(
    private readonly settings: LlamaServerSettings,
    private port: number,
    /** Where slots are saved to and restored from (--slot-save-path); removed at stop. */
    readonly stateDirectory: string,
  ) {}

  /** Starts the server and resolves once it answers /health with the model loaded. */
  static async start(settings: LlamaServerSettings): Promise<LlamaServerProcess> {
    const server = new LlamaServerProcess(settings, 0, await createSlotStateDirectory());
    try {
      await server.launch();
    } catch (error) {
      await rm(server.stateDirectory, { recursive: true, force: true });
      throw error;
    }
    return server;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The guard's process id; llama-server is its first child (the second, its watcher), in its group. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /**
   * Resolves once the server answers again after a crash (at once while it runs), or rejects when
   * it has not within `timeoutMs` or the signal aborts.
   */
  async whenReady(signal: AbortSignal, timeoutMs = 60_000): Promise<void> {
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      await abortable(this.healthy, AbortSignal.any([signal, timeout]));
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (timeout.aborted) throw this.failure(`has not come back within ${timeoutMs / 1000} s`);
      throw error;
    }
  }

  /** The last lines llama-server printed (for the log). */
  private outputTail(): string {
    return this.output.slice(-4000);
  }

  async stop(timeoutMs = 5000): Promise<void> {
    this.stopped.abort();
    if (this.child) await terminate(this.child, timeoutMs);
    await this.healthy.catch(() => undefined); // a launch under way ends once its child is gone
    await rm(this.stateDirectory, { recursive: true, force: true });
  }

  private launch(): Promise<void> {
    this.healthy = this.launchOnce();
    return this.healthy;
  }

  private async launchOnce(): Promise<void> {
    const child = spawn(
      "/bin/sh",
      ["-c", GUARD, "llama-server", this.settings.binary, ...serverArgs(this.settings, this.port, this.stateDirectory)],
      {
        stdio: ["pipe", "pipe", "pipe"],
        // Slots debug makes GET /slots show each slot's text so far: the reply so far in the status
        // record, read by the slot monitor's polls (no stream; docs/engines.md has the cost measured).
        env: { ...process.env, LLAMA_SERVER_SLOTS_DEBUG: "1" },
        // Its own process group: a terminal's Ctrl-C reaches the worker, which stops the server itself.
        detached: true,
      },
    );
    this.child = child;
    this.output = "";
    const listening = new Promise<number>((resolve) => {
      const read = (chunk: Buffer) => {
        this.output = (this.output + chunk.toString()).slice(-OUTPUT_KEPT);
        const port = LISTENING.exec(this.output)?.[1];
        if (port) resolve(Number(port));
      };
      child.stdout.on("data", read);
      child.stderr.on("data", read);
    });
    child.on("error", (error) => (this.output += `\n${error.message}`));
    child.stdin.on("error", () => undefined); // the guard gone first: nothing left to tell
    const exited = once(child, "exit").then(([code, signal]) => `code ${String(code)}, signal ${String(signal)}`);
    // One deadline for loading the model (llama-server listens only once it is loaded) and answering.
    const deadline = AbortSignal.any([
      AbortSignal.timeout(this.settings.startTimeoutMs ?? 300_000),
      this.stopped.signal,
    ]);
    try {
      const early = await abortable(Promise.race([listening, exited]), deadline);
      if (typeof early === "string") throw this.failure(`exited before listening (${early})`);
      this.port = early;
      await this.waitUntilHealthy(exited, deadline);
    } catch (error) {
      await terminate(child, 1000);
      if (!deadline.aborted) throw error;
      throw this.failure(
        this.stopped.signal.aborted ? "was stopped while starting" : "did not load the model and answer in time",
      );
    }
    const launchedAt = Date.now();
    void exited.then((how) => {
      if (this.stopped.signal.aborted || child !== this.child) return;
      // A server that ran a while before dying starts its back-off afresh; a crash loop backs off.
      if (Date.now() - launchedAt > 60_000) this.restarts = 0;
      // Not ready from this moment on: a job that finds the server gone waits for the relaunch.
      this.healthy = this.relaunch(`exited (${how})`);
      this.healthy.catch(() => undefined); // a waiter learns of it from its own timeout
    });
  }

  /** Polls /health until it answers 200 (the model loaded), the server exits or the deadline passes. */
  private async waitUntilHealthy(exited: Promise<string>, deadline: AbortSignal): Promise<void> {
    let gone: string | null = null;
    void exited.then((how) => (gone = how));
    while (gone === null) {
      deadline.throwIfAborted();
      const ok = await fetch(`${this.url}/health`, {
        signal: AbortSignal.any([AbortSignal.timeout(2000), deadline]),
      }).then(
        (response) => response.ok,
        () => false,
      );
      if (ok) return;
      await sleep(50);
    }
    throw this.failure(`exited while loading the model (${String(gone)})`);
  }

  /** After an unexpected exit (a crash, the OOM killer): starts it again on the same port, backing off. */
  private async relaunch(reason: string): Promise<void> {
    for (;;) {
      const delayMs = Math.min(30_000, 500 * 2 ** Math.min(this.restarts, 6));
      this.restarts += 1;
      this.settings.logger.error("llama-server stopped unexpectedly; restarting it", {
        reason,
        restartInMs: delayMs,
        output: this.outputTail(),
      });
      await sleep(delayMs, undefined, { signal: this.stopped.signal }).catch(() => undefined);
      if (this.stopped.signal.aborted) throw new Error("llama-server was stopped");
      try {
        await this.launchOnce();
        this.settings.logger.info("llama-server restarted", { url: this.url });
        return;
      } catch (error) {
        if (this.stopped.signal.aborted) throw error;
        reason = error instanceof Error ? error.message : String(error);
      }
    }
  }

  /** Logs the server's last output (paths, internals) and returns an error short enough for a client. */
  private failure(what: string): Error {
    this.settings.logger.error(`llama-server ${what}`, { output: this.outputTail() });
    return new Error(`llama-server ${what} (its output is in the worker's log)`);
  }
}

/** Closes the guard's pipe (it then stops the server), and kills the whole group if that takes too long. */
async function terminate(child: GuardedChild, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.stdin.end();
  const stopped = await abortable(exited, AbortSignal.timeout(timeoutMs)).then(
    () => true,
    () => false,
  );
  if (stopped || child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // the group went in the meantime
  }
  await exited;
}

/** The promise's outcome, or a rejection with the signal's reason once it aborts. */
async function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  let onAbort!: () => void;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
