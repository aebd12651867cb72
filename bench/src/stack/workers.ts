import { QUEUES } from "@chorus/contracts";
import { redisKeys } from "@chorus/platform/redis";
import { Queue } from "bullmq";
import { isProbeMessage, type ProbeMessage } from "../baselines/probe-messages.js";
import { sleep } from "../metrics/clock.js";
import { APP_NODE_FLAGS, appEntryPoint, appEnv } from "@chorus/local-runtime";
import { benchScript } from "../paths.js";
import { GATEWAY_PREFIX, type BenchStack } from "./bench-stack.js";
import { startNode, whileAlive, type BenchChild } from "./child-processes.js";

/** Waits until `ready(queue)` holds for the text queue under `prefix`; throws naming `what` after `timeoutMs`. */
export async function untilTextQueue(
  stack: BenchStack,
  prefix: string,
  what: string,
  ready: (queue: Queue) => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const queue = new Queue(QUEUES.text, { connection: stack.redis, prefix: redisKeys(prefix).bullPrefix(QUEUES.text) });
  try {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await ready(queue)) return;
      await sleep(100);
    }
    throw new Error(`the ${prefix} text queue: ${what} within ${timeoutMs} ms`);
  } finally {
    await queue.close();
  }
}

const untilWorkerConnected = (stack: BenchStack, prefix: string, timeoutMs: number) =>
  untilTextQueue(stack, prefix, "no worker connected", async (queue) => (await queue.getWorkersCount()) > 0, timeoutMs);

/**
 * The real worker (its real main, the given model) on the gateway's queue; resolves once it consumes.
 * `settings` are more of its environment variables (LLM_THREADS, TTS_CONCURRENCY, ...).
 */
export async function startRealWorker(
  stack: BenchStack,
  model: string,
  settings: Record<string, string> = {},
): Promise<BenchChild> {
  const env = { ...stack.baseEnv, REDIS_PREFIX: GATEWAY_PREFIX, LLM_MODEL: model, LLM_GPU: "false", ...settings };
  const child = startNode("worker", appEntryPoint("worker"), {
    env: appEnv("worker", env),
    nodeArgs: [...APP_NODE_FLAGS.worker],
  });
  try {
    await whileAlive(child, untilWorkerConnected(stack, GATEWAY_PREFIX, 60_000));
    return child;
  } catch (error) {
    await child.stop(2000);
    throw error;
  }
}

export interface NoopWorkerOptions {
  prefixes: string[];
  /** The stand-in for generation: how long each job "works" before writing `completed`. */
  holdMs: number;
  /** Report each job's start and finish over IPC (the queue row needs it; the memory row does not). */
  report: boolean;
  /** Jobs each of its Workers runs at once (default 8). */
  concurrency?: number;
}

/** The bench's no-op worker process, and the start/finish stamps it reported, by job id. */
export class NoopWorker {
  private readonly stamps = new Map<string, number>();
  private readonly waiters = new Map<string, (at: number) => void>();

  private constructor(readonly child: BenchChild) {
    child.process.on("message", (message: unknown) => {
      if (isProbeMessage(message) && message.kind !== "ready") this.record(message);
    });
  }

  static async start(stack: BenchStack, options: NoopWorkerOptions): Promise<NoopWorker> {
    const env = {
      ...stack.baseEnv,
      PREFIXES: options.prefixes.join(","),
      HOLD_MS: String(options.holdMs),
      REPORT: options.report ? "1" : "0",
      CONCURRENCY: String(options.concurrency ?? 8),
    };
    const child = startNode("noop-worker", benchScript("baselines/noop-worker.process.js"), { env, ipc: true });
    const ready = new Promise<void>((resolve) => {
      child.process.on("message", (message: unknown) => {
        if (isProbeMessage(message) && message.kind === "ready") resolve();
      });
    });
    await whileAlive(child, ready);
    return new NoopWorker(child);
  }

  /** When the worker started job `id` (its clock; see nowMs). */
  started(id: string, timeoutMs = 10_000): Promise<number> {
    return this.stamp(`started:${id}`, timeoutMs);
  }

  /** When the worker finished job `id`'s work, just before writing `completed`. */
  finished(id: string, timeoutMs = 10_000): Promise<number> {
    return this.stamp(`finished:${id}`, timeoutMs);
  }

  stop(): Promise<void> {
    return this.child.stop();
  }

  private record(message: Extract<ProbeMessage, { id: string }>): void {
    const key = `${message.kind}:${message.id}`;
    const waiter = this.waiters.get(key);
    if (waiter) {
      this.waiters.delete(key);
      waiter(message.at);
    } else {
      this.stamps.set(key, message.at);
    }
  }

  private stamp(key: string, timeoutMs: number): Promise<number> {
    const known = this.stamps.get(key);
    if (known !== undefined) {
      this.stamps.delete(key);
      return Promise.resolve(known);
    }
    const reported = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(key);
        reject(new Error(`the no-op worker did not report ${key} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.set(key, (at) => {
        clearTimeout(timer);
        resolve(at);
      });
    });
    return whileAlive(this.child, reported);
  }
}
