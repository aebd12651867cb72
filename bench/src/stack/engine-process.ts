import { isEngineReply, type EngineCall } from "../baselines/direct-engine-messages.js";
import { benchScript } from "../paths.js";
import { startNode, whileAlive, type BenchChild } from "./child-processes.js";

interface Pending<R> {
  resolve: (result: R) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * A direct-engine baseline in a process of its own (so the engine never shares the bench's event
 * loop or core share), called over IPC one request at a time.
 */
export class EngineProcess<Q, R> {
  private nextId = 1;
  private readonly pending = new Map<number, Pending<R>>();

  private constructor(readonly child: BenchChild) {
    child.process.on("message", (message: unknown) => {
      if (!isEngineReply(message) || message.kind === "ready") return;
      const waiter = this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id);
      clearTimeout(waiter.timer);
      if (message.kind === "result") waiter.resolve(message.result as R);
      else waiter.reject(new Error(`${child.label}: ${message.message}`));
    });
  }

  /** Starts `script` (relative to bench/dist) and resolves once it says it is ready. */
  static async start<Q, R>(
    label: string,
    script: string,
    env: NodeJS.ProcessEnv,
    readyTimeoutMs = 60_000,
  ): Promise<EngineProcess<Q, R>> {
    const child = startNode(label, benchScript(script), { env, ipc: true });
    let timer: NodeJS.Timeout | undefined;
    const ready = new Promise<void>((resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${label} was not ready within ${readyTimeoutMs} ms:\n${child.output()}`)),
        readyTimeoutMs,
      );
      child.process.on("message", (message: unknown) => {
        if (isEngineReply(message) && message.kind === "ready") resolve();
      });
    });
    try {
      await whileAlive(child, ready);
      return new EngineProcess<Q, R>(child);
    } catch (error) {
      await child.stop(2000);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  call(request: Q, timeoutMs = 120_000): Promise<R> {
    const id = this.nextId++;
    const answered = new Promise<R>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${this.child.label} did not answer call ${id} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
    });
    this.child.process.send({ id, request } satisfies EngineCall<Q>);
    return whileAlive(this.child, answered);
  }

  stop(): Promise<void> {
    return this.child.stop();
  }
}
