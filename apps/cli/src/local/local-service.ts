import { availableParallelism } from "node:os";
import { freePort, portOrFree, stopChildren, type RunningChild } from "@chorus/local-runtime";
import { launchApp, waitUntilReady, type ReadinessProbe } from "./launch.js";
import type { BackgroundBuild } from "./llama-server-build.js";
import { clearLocalRedis } from "./local-state.js";
import type { RedisChoice } from "./redis-choice.js";
import type { StartCommand } from "./start-command.js";

type Say = (line: string) => void;

interface WorkerChild {
  child: RunningChild;
  port: number;
}

const bindsEverywhere = (bind: string) => bind === "0.0.0.0" || bind === "::";

/** A bind address as a client on this machine reaches it: every interface through 127.0.0.1. */
function reachableHost(bind: string): string {
  if (bindsEverywhere(bind)) return "127.0.0.1";
  return bind.includes(":") ? `[${bind}]` : bind;
}

/**
 * `npm start`'s gateways and workers as child processes of this launcher: started, probed until
 * ready, restarted onto llama-server once it is built, and stopped in order (gateways, workers,
 * then the private Redis).
 */
export class LocalService {
  private readonly gateways: RunningChild[] = [];
  private readonly workers: WorkerChild[] = [];
  /** Workers stopped on purpose, to restart onto llama-server: their exit does not stop the service. */
  private readonly restarting = new Set<RunningChild>();
  private stopping: Promise<never> | undefined;
  private readonly threads: string;
  private readonly env: NodeJS.ProcessEnv;

  constructor(
    private readonly command: StartCommand,
    private readonly redis: RedisChoice,
    private readonly llamaServerBuild: BackgroundBuild | undefined,
    private readonly instanceId: string,
    private readonly say: Say,
  ) {
    this.env = {
      ...process.env,
      REDIS_URL: redis.url,
      LOG_FORMAT: process.env.LOG_FORMAT || "pretty",
      INSTANCE_ID: instanceId,
    };
    this.threads = this.llamaThreads();
  }

  get isStopping(): boolean {
    return this.stopping !== undefined;
  }

  /** Starts every worker, then every gateway, then waits until all are ready and says where they are. */
  async start(): Promise<void> {
    for (let i = 0; i < this.command.workers; i++) {
      const port = await this.workerPort(i);
      this.workers.push({ child: this.startWorker(i, port, this.llamaServerBuild !== undefined), port });
    }
    const basePort = this.command.gateway.PORT;
    for (let i = 0; i < this.command.gateways; i++)
      this.gateways.push(launchApp("gateway", `gateway ${i + 1}`, { ...this.env, PORT: String(basePort + i) }));
    [...this.gateways, ...this.workers.map((w) => w.child)].forEach((child) => this.stopWhenExits(child));
    const gatewayHost = reachableHost(this.command.gateway.HOST);
    const gatewayProbes = this.gateways.map((child, i) => ({
      child,
      url: `http://${gatewayHost}:${basePort + i}/healthz`,
      meanwhile: "starting",
      portSetting: "PORT",
    }));
    const readiness = await waitUntilReady(
      [...gatewayProbes, ...this.workers.map((w) => this.workerProbe(w))],
      this.instanceId,
      this.say,
    );
    if (this.stopping) return;
    if (!readiness.ready) {
      if (!readiness.foreign) return;
      const { child, url, portSetting } = readiness.foreign;
      this.say(
        `${url} answers, but not as the ${child.label} this npm start started: another program holds that port. Stop it, or set ${portSetting} to a free port`,
      );
      void this.shutdown(1);
      return;
    }
    this.sayReady(gatewayHost);
    if (this.llamaServerBuild) await this.restartWorkersOntoLlamaServer(this.llamaServerBuild);
  }

  /**
   * Gateways first (no new jobs are taken), then workers (they finish or hand back theirs), then the
   * private Redis they all write to: stopping Redis earlier is what made every app print its
   * connection errors. Called again meanwhile (a second signal), it waits for the same stop.
   */
  shutdown(code: number): Promise<never> {
    this.stopping ??= (async () => {
      await this.llamaServerBuild?.stop();
      await stopChildren(this.gateways, 15_000);
      await stopChildren(
        this.workers.map((w) => w.child),
        35_000,
      );
      await this.redis.owned?.stop();
      if (this.redis.owned) clearLocalRedis();
      this.say("stopped");
      process.exit(code);
    })();
    return this.stopping;
  }

  private sayReady(gatewayHost: string): void {
    const where = bindsEverywhere(this.command.gateway.HOST) ? " (every network interface: HOST=0.0.0.0)" : "";
    for (let i = 0; i < this.command.gateways; i++)
      this.say(`gateway listening on http://${gatewayHost}:${this.command.gateway.PORT + i}${where}`);
    this.say(`ready: ${this.command.workers} worker(s) take jobs`);
    this.say(
      "create a key:  KEY=$(npm run --silent keys -- create --name demo --rotate)   then see README 'Quick start'. Ctrl-C stops everything.",
    );
    this.say(`playground:    open http://${gatewayHost}:${this.command.gateway.PORT}/ in a browser and paste the key`);
  }

  /**
   * A worker started while llama-server builds says so instead of telling the user to build it (LLAMA_SERVER_BUILDING).
   */
  private startWorker(i: number, port: number, llamaServerBuilding: boolean): RunningChild {
    const building = llamaServerBuilding ? { LLAMA_SERVER_BUILDING: "1" } : {};
    return launchApp("worker", `worker ${i + 1}`, {
      ...this.env,
      LLM_THREADS: this.threads,
      WORKER_HTTP_PORT: String(port),
      ...building,
    });
  }

  // The worker's health port opens once its model is loaded; its /readyz answers 200 once it takes jobs.
  private workerProbe({ child, port }: WorkerChild): ReadinessProbe {
    const host = reachableHost(this.command.worker.WORKER_HTTP_HOST);
    return {
      child,
      url: `http://${host}:${port}/readyz`,
      meanwhile: "downloading or loading its model: see its log above",
      portSetting: "WORKER_HTTP_PORT",
    };
  }

  private stopWhenExits(child: RunningChild): void {
    void child.exited.then((code) => {
      if (this.stopping || this.restarting.has(child)) return;
      this.say(`${child.label} exited (code ${String(code)}); stopping the service`);
      void this.shutdown(code || 1);
    });
  }

  /**
   * llama.cpp threads per worker: the cores split between the workers this launcher starts (more
   * threads than cores stall every decode step; see docs/engines.md), unless LLM_THREADS is set.
   */
  private llamaThreads(): string {
    const cores = availableParallelism();
    const { workers, threadsSet, worker } = this.command;
    if (threadsSet) {
      if (worker.LLM_THREADS * workers > cores)
        this.say(
          `LLM_THREADS=${worker.LLM_THREADS} x ${workers} worker(s) is more llama.cpp threads than the ${cores} cores: generation will crawl`,
        );
      return String(worker.LLM_THREADS);
    }
    const each = Math.max(1, Math.floor(cores / workers));
    if (workers > 1) this.say(`${workers} workers on ${cores} cores: LLM_THREADS=${each} each`);
    return String(each);
  }

  /**
   * Each worker its own health/metrics port: WORKER_HTTP_PORT + i when set (0: a free port), else
   * the worker's default + i, or a free port where that one is taken (another service on this
   * host). Always a known port: the launcher asks it whether the worker is ready.
   */
  private async workerPort(i: number): Promise<number> {
    const chosen = this.command.worker.WORKER_HTTP_PORT;
    if (this.command.workerPortSet) return chosen === 0 ? freePort() : chosen + i;
    const port = await portOrFree(chosen + i);
    if (port !== chosen + i)
      this.say(
        `worker ${i + 1}: port ${chosen + i} is taken, its health and metrics are on ${port} (WORKER_HTTP_PORT chooses)`,
      );
    return port;
  }

  /**
   * Once llama-server is built, each worker in turn stops as on Ctrl-C (its running jobs finish, or
   * go back to the queue) and starts again, now on llama-server. One at a time: the others keep
   * taking jobs, and what waits meanwhile stays queued.
   */
  private async restartWorkersOntoLlamaServer(build: BackgroundBuild): Promise<void> {
    if (!(await build.built)) {
      if (!this.stopping)
        this.say(
          "llama-server was not built (see [llama:build] above): the workers go on with node-llama-cpp's prebuilt binary",
        );
      return;
    }
    for (let i = 0; i < this.workers.length && !this.stopping; i++) {
      const { child, port } = this.workers[i]!;
      this.say(`llama-server is built: restarting ${child.label} onto it`);
      this.restarting.add(child);
      await stopChildren([child], 35_000);
      if (this.stopping) return;
      const next = { child: this.startWorker(i, port, false), port };
      this.workers[i] = next;
      this.stopWhenExits(next.child);
      if ((await waitUntilReady([this.workerProbe(next)], this.instanceId, this.say)).ready)
        this.say(`${next.child.label} runs llama-server`);
    }
  }
}
