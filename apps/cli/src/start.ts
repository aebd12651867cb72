import { randomUUID } from "node:crypto";
import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";
import { COMMON_ENV, parseCommandLine, redactRedisUrl } from "@chorus/platform";
import { startChild, stopChildren, type Child } from "./local/child-processes.js";
import { buildLlamaServerFirst, buildLlamaServerMeanwhile, planLlamaServerBuild, type BackgroundBuild } from "./local/llama-server-build.js";
import { clearLocalRedis, saveLocalRedis } from "./local/local-state.js";
import { sharedPrefixRefusal, workersAlreadyOnPrefix } from "./local/shared-prefix.js";
import { waitUntilReady, type ReadinessProbe } from "./local/readiness.js";
import { chooseRedis, defaultRedisDataDir } from "./local/redis-choice.js";
import { freePort, portOrFree } from "./local/redis-server.js";

/** `npm start`: the whole local service (the usage says what it does). */
const USAGE = `usage: npm start [-- [--gateways N] [--workers M] [--redis-data DIR|none] [--private-redis] [--share-prefix]]

The whole local service: Redis (REDIS_URL, else 127.0.0.1:6379, else a private redis-server), then N
gateways (PORT, PORT+1, ...) and M workers (health ports WORKER_HTTP_PORT+i, by default 9100+i or a
free port) as child processes. Where llama.cpp's llama-server is not yet built for this machine
(npm run llama:build), the workers start on node-llama-cpp's prebuilt binary while it builds at low
priority, then restart onto it one at a time.
It says "ready" once every gateway and worker is. Ctrl-C stops gateways, workers, then Redis.
The gateways and workers read their settings from the environment
(npm run gateway -- --help, npm run worker -- --help).

  --gateways N         gateway processes (default 1)
  --workers M          worker processes (default 1); the cores are split between them
  --redis-data DIR     where a private redis-server keeps its data (append-only file), across runs;
                       none: keep nothing (default CHORUS_REDIS_DATA, else
                       ${defaultRedisDataDir()})
  --private-redis      start a private redis-server even when REDIS_URL is set or a Redis answers
                       on 127.0.0.1:6379
  --share-prefix       start even when workers of another deployment already serve REDIS_PREFIX
                       (default chorus) on that Redis; without it npm start refuses, since the two
                       would share jobs and API keys
  -h, --help           this text`;
const { values } = parseCommandLine(USAGE, (args) =>
  parseArgs({
    args,
    options: {
      gateways: { type: "string", default: "1" },
      workers: { type: "string", default: "1" },
      "redis-data": { type: "string", default: process.env.CHORUS_REDIS_DATA || defaultRedisDataDir() },
      "private-redis": { type: "boolean", default: false },
      "share-prefix": { type: "boolean", default: false },
    },
  }),
);
const gateways = Number(values.gateways);
const workers = Number(values.workers);
const basePort = Number(process.env.PORT || 3000);
if (![gateways, workers, basePort].every(Number.isInteger) || gateways < 1 || workers < 1 || !values["redis-data"]) {
  process.stderr.write(`--gateways and --workers take whole numbers >= 1 (and PORT a port number), --redis-data a directory or none\n\n${USAGE}\n`);
  process.exit(2);
}
const say = (line: string) => process.stdout.write(`[start] ${line}\n`);
const servedApart = ["REDIS_SENTINELS", "REDIS_CLUSTER_NODES"].find((name) => process.env[name]);
if (servedApart) {
  // The launcher picks or starts one Redis and hands its URL to every process; Sentinel and Cluster are for services run apart.
  process.stderr.write(
    `npm start runs on one Redis (REDIS_URL, 127.0.0.1:6379 or a private one); with ${servedApart} run each process with npm run gateway / npm run worker (docs/operations.md, Redis Sentinel and Redis Cluster)\n`,
  );
  process.exit(2);
}

/**
 * The worker's llama.cpp engine is 1.5-4x faster as llama-server built for this machine: built
 * before the workers start only when they need it to start (LLAMA_RUNTIME=server); else the workers
 * start on node-llama-cpp's prebuilt binary and it is built meanwhile (local/llama-server-build.ts).
 */
function startLlamaServerBuild(): BackgroundBuild | undefined {
  const plan = planLlamaServerBuild(process.env);
  if (plan === "first" && !buildLlamaServerFirst(process.env)) say("llama-server could not be built: LLAMA_RUNTIME=server workers cannot start (npm run llama:build -- --help)");
  if (plan !== "meanwhile") return undefined;
  say(
    "llama-server is not built for this machine yet: the workers start now on node-llama-cpp's prebuilt binary (1.5-4x slower), and llama-server builds meanwhile at low CPU priority (~10 min on 2 cores); then each worker restarts onto it",
  );
  return buildLlamaServerMeanwhile(process.env);
}

/** Another deployment's workers on this Redis and prefix would take our jobs (and we theirs): refuse unless asked to share. */
async function refuseSharedPrefix(url: string): Promise<void> {
  const others = await workersAlreadyOnPrefix(url, prefix);
  if (!others) return;
  if (values["share-prefix"]) {
    say(`joining ${others} live worker(s) already on key prefix '${prefix}' (--share-prefix)`);
    return;
  }
  process.stderr.write(`npm start: ${sharedPrefixRefusal(url, prefix, others)}\n`);
  process.exit(2);
}

const redis = await chooseRedis({ privateRedis: values["private-redis"], dataDir: values["redis-data"] }, say).catch((error: unknown) => {
  say(`could not start a private redis-server: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
const prefix = process.env.REDIS_PREFIX || COMMON_ENV.REDIS_PREFIX.default;
say(`Redis: ${redactRedisUrl(redis.url)}, key prefix '${prefix}' (REDIS_PREFIX)`);
if (redis.owned) saveLocalRedis({ redisUrl: redis.url, prefix });
else await refuseSharedPrefix(redis.url);
const dataChosen = process.env.CHORUS_REDIS_DATA || process.argv.some((arg) => arg.startsWith("--redis-data"));
if (!redis.owned && dataChosen) say("--redis-data / CHORUS_REDIS_DATA choose the data of a private redis-server only; this one is not (--private-redis starts one)");
// After the Redis checks: a refusal comes in seconds, not after a first build of minutes.
const llamaServerBuild = startLlamaServerBuild();
/** This run's id: its gateways and workers answer it on their probes, so the waits below know their own. */
const instanceId = randomUUID();
const env = { ...process.env, REDIS_URL: redis.url, LOG_FORMAT: process.env.LOG_FORMAT || "pretty", INSTANCE_ID: instanceId };
/**
 * llama.cpp threads per worker: the cores split between the workers this launcher starts (more
 * threads than cores stall every decode step; see docs/engines.md), unless LLM_THREADS is set.
 */
function llamaThreads(): string {
  const cores = availableParallelism();
  const set = Number(process.env.LLM_THREADS);
  if (process.env.LLM_THREADS && set * workers > cores) say(`LLM_THREADS=${set} x ${workers} worker(s) is more llama.cpp threads than the ${cores} cores: generation will crawl`);
  if (process.env.LLM_THREADS) return process.env.LLM_THREADS;
  const each = Math.max(1, Math.floor(cores / workers));
  if (workers > 1) say(`${workers} workers on ${cores} cores: LLM_THREADS=${each} each`);
  return String(each);
}

/**
 * Each worker its own health/metrics port: WORKER_HTTP_PORT + i when set (0: a free port), else
 * 9100 + i, or a free port where that one is taken (another service on this host). Always a
 * known port: the launcher asks it whether the worker is ready.
 */
async function workerPort(i: number): Promise<number> {
  const chosen = Number(process.env.WORKER_HTTP_PORT);
  if (process.env.WORKER_HTTP_PORT) return chosen === 0 ? freePort() : chosen + i;
  const port = await portOrFree(9100 + i);
  if (port !== 9100 + i) say(`worker ${i + 1}: port ${9100 + i} is taken, its health and metrics are on ${port} (WORKER_HTTP_PORT chooses)`);
  return port;
}

const threads = llamaThreads();
/** A worker started while llama-server builds says so instead of telling the user to build it (LLAMA_SERVER_BUILDING). */
const startWorker = (i: number, port: number, llamaServerBuilding: boolean) =>
  startChild("worker", `worker ${i + 1}`, { ...env, LLM_THREADS: threads, WORKER_HTTP_PORT: String(port), ...(llamaServerBuilding ? { LLAMA_SERVER_BUILDING: "1" } : {}) });
const workerChildren: { child: Child; port: number }[] = [];
for (let i = 0; i < workers; i++) {
  const port = await workerPort(i);
  workerChildren.push({ child: startWorker(i, port, llamaServerBuild !== undefined), port });
}
const gatewayChildren: Child[] = [];
for (let i = 0; i < gateways; i++) gatewayChildren.push(startChild("gateway", `gateway ${i + 1}`, { ...env, PORT: String(basePort + i) }));

/** A bind address as a client on this machine reaches it: every interface (or unset, loopback) through 127.0.0.1. */
function reachableHost(bind: string | undefined): string {
  if (!bind || bindsEverywhere(bind)) return "127.0.0.1";
  return bind.includes(":") ? `[${bind}]` : bind;
}

function bindsEverywhere(bind: string | undefined): boolean {
  return bind === "0.0.0.0" || bind === "::";
}

let stopping: Promise<never> | undefined;
/**
 * Gateways first (no new jobs are taken), then workers (they finish or hand back theirs), then the
 * private Redis they all write to: stopping Redis earlier is what made every app print its
 * connection errors. Called again meanwhile (a second signal), it waits for the same stop.
 */
function shutdown(code: number): Promise<never> {
  stopping ??= (async () => {
    await llamaServerBuild?.stop();
    await stopChildren(gatewayChildren, 15_000);
    await stopChildren(
      workerChildren.map((w) => w.child),
      35_000,
    );
    await redis.owned?.stop();
    if (redis.owned) clearLocalRedis();
    say("stopped");
    process.exit(code);
  })();
  return stopping;
}
// npm forwards the terminal's Ctrl-C to this process, which has it from the terminal too: one stop, said once.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    if (!stopping) say(`${signal}: stopping the gateways, then the workers (running jobs finish, 30 s at most)${redis.owned ? ", then the private Redis" : ""}`);
    void shutdown(0);
  });
}
/** Workers stopped on purpose, to restart onto llama-server: their exit does not stop the service. */
const restarting = new Set<Child>();
function stopServiceWhenExits(child: Child): void {
  void child.exited.then((code) => {
    if (stopping || restarting.has(child)) return;
    say(`${child.label} exited (code ${String(code)}); stopping the service`);
    void shutdown(code || 1);
  });
}
[...gatewayChildren, ...workerChildren.map((w) => w.child)].forEach(stopServiceWhenExits);

// The worker's health port opens once its model is loaded; its /readyz answers 200 once it takes jobs.
const gatewayHost = reachableHost(process.env.HOST);
const workerHost = reachableHost(process.env.WORKER_HTTP_HOST);
const workerProbe = ({ child, port }: { child: Child; port: number }): ReadinessProbe => ({
  child,
  url: `http://${workerHost}:${port}/readyz`,
  meanwhile: "downloading or loading its model: see its log above",
  portSetting: "WORKER_HTTP_PORT",
});
const readiness = await waitUntilReady(
  [...gatewayChildren.map((child, i) => ({ child, url: `http://${gatewayHost}:${basePort + i}/healthz`, meanwhile: "starting", portSetting: "PORT" })), ...workerChildren.map(workerProbe)],
  instanceId,
  say,
);
if (!readiness.ready && readiness.foreign && !stopping) {
  const { child, url, portSetting } = readiness.foreign;
  say(`${url} answers, but not as the ${child.label} this npm start started: another program holds that port. Stop it, or set ${portSetting} to a free port`);
  void shutdown(1);
}
if (readiness.ready && !stopping) {
  const where = bindsEverywhere(process.env.HOST) ? " (every network interface: HOST=0.0.0.0)" : "";
  for (let i = 0; i < gateways; i++) say(`gateway listening on http://${gatewayHost}:${basePort + i}${where}`);
  say(`ready: ${workers} worker(s) take jobs`);
  say("create a key:  KEY=$(npm run --silent keys -- create --name demo --rotate)   then see README 'Quick start'. Ctrl-C stops everything.");
  say(`playground:    open http://${gatewayHost}:${basePort}/ in a browser and paste the key`);
}

/**
 * Once llama-server is built, each worker in turn stops as on Ctrl-C (its running jobs finish, or
 * go back to the queue) and starts again, now on llama-server. One at a time: the others keep
 * taking jobs, and what waits meanwhile stays queued.
 */
async function restartWorkersOntoLlamaServer(build: BackgroundBuild): Promise<void> {
  if (!(await build.built)) {
    if (!stopping) say("llama-server was not built (see [llama:build] above): the workers go on with node-llama-cpp's prebuilt binary");
    return;
  }
  for (let i = 0; i < workerChildren.length && !stopping; i++) {
    const { child, port } = workerChildren[i]!;
    say(`llama-server is built: restarting ${child.label} onto it`);
    restarting.add(child);
    await stopChildren([child], 35_000);
    if (stopping) return;
    const next = { child: startWorker(i, port, false), port };
    workerChildren[i] = next;
    stopServiceWhenExits(next.child);
    if ((await waitUntilReady([workerProbe(next)], instanceId, say)).ready) say(`${next.child.label} runs llama-server`);
  }
}
if (readiness.ready && llamaServerBuild) await restartWorkersOntoLlamaServer(llamaServerBuild);
