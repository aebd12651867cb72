import { spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { parseCommandLine } from "@chorus/platform";
import { startChild, stopChildren, waitForHttp, type Child } from "./local/child-processes.js";
import { clearLocalRedis, saveLocalRedis } from "./local/local-state.js";
import { DEFAULT_REDIS_URL, portOrFree, redisAnswers, startPrivateRedis, type PrivateRedis } from "./local/redis-server.js";

/** `npm start`: the whole local service (the usage says what it does). */
const USAGE = `usage: npm start [-- [--gateways N] [--workers M]]

The whole local service: Redis (REDIS_URL, else 127.0.0.1:6379, else a private redis-server), then N
gateways (PORT, PORT+1, ...) and M workers (health ports WORKER_HTTP_PORT+i, by default 9100+i or a
free port) as child processes; llama.cpp is built for this machine first (npm run llama:build).
Ctrl-C stops everything. The gateways and workers read their settings from the environment
(npm run gateway -- --help, npm run worker -- --help).

  --gateways N   gateway processes (default 1)
  --workers M    worker processes (default 1); the cores are split between them
  -h, --help     this text`;
const { values } = parseCommandLine(USAGE, (args) => parseArgs({ args, options: { gateways: { type: "string", default: "1" }, workers: { type: "string", default: "1" } } }));
const gateways = Number(values.gateways);
const workers = Number(values.workers);
const basePort = Number(process.env.PORT || 3000);
if (![gateways, workers, basePort].every(Number.isInteger) || gateways < 1 || workers < 1) {
  process.stderr.write(`--gateways and --workers take whole numbers >= 1 (and PORT a port number)\n\n${USAGE}\n`);
  process.exit(2);
}
const say = (line: string) => process.stdout.write(`[start] ${line}\n`);

async function resolveRedis(): Promise<{ url: string; owned?: PrivateRedis }> {
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL };
  if (await redisAnswers(DEFAULT_REDIS_URL)) return { url: DEFAULT_REDIS_URL };
  const owned = await startPrivateRedis();
  say(`no Redis on 127.0.0.1:6379 and REDIS_URL is unset: started a private redis-server at ${owned.url} (it stops with this process)`);
  saveLocalRedis(owned.url);
  return { url: owned.url, owned };
}

/** The worker's llama.cpp engine is 2-4x faster with a build for this machine: make sure one is there. */
function ensureLlamaBuild(): void {
  if (process.env.LLM_ENGINE === "openai-compatible" && !process.env.MODELS_CONFIG) return;
  const script = fileURLToPath(new URL("../../worker/dist/build-llama.js", import.meta.url));
  const result = spawnSync(process.execPath, [script], { stdio: "inherit" });
  if (result.status !== 0) say("continuing without llama.cpp built for this machine: generation runs 1.5-4x slower (npm run llama:build -- --help)");
}

ensureLlamaBuild();
const redis = await resolveRedis();
say(`Redis: ${redis.url.replace(/\/\/[^@]*@/, "//***@")}`);
const env = { ...process.env, REDIS_URL: redis.url, LOG_FORMAT: process.env.LOG_FORMAT || "pretty" };
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

const children: Child[] = [];
/**
 * Each worker its own health/metrics port: WORKER_HTTP_PORT + i when set (0 keeps "any free port"),
 * else 9100 + i, or a free port where that one is taken (another service on this host).
 */
async function workerPort(i: number): Promise<number> {
  const chosen = Number(process.env.WORKER_HTTP_PORT);
  if (process.env.WORKER_HTTP_PORT) return chosen === 0 ? 0 : chosen + i;
  const port = await portOrFree(9100 + i);
  if (port !== 9100 + i) say(`worker ${i + 1}: port ${9100 + i} is taken, its health and metrics are on ${port} (WORKER_HTTP_PORT chooses)`);
  return port;
}

const threads = llamaThreads();
for (let i = 0; i < workers; i++) {
  const port = await workerPort(i);
  children.push(startChild("worker", `worker ${i + 1}`, { ...env, LLM_THREADS: threads, WORKER_HTTP_PORT: String(port) }));
}
for (let i = 0; i < gateways; i++) children.push(startChild("gateway", `gateway ${i + 1}`, { ...env, PORT: String(basePort + i) }));

let stopping = false;
async function shutdown(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    await stopChildren(children, 15_000);
    await redis.owned?.stop();
    if (redis.owned) clearLocalRedis();
  }
  process.exit(code);
}
process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));
for (const child of children) {
  void child.exited.then((code) => {
    if (stopping) return;
    say(`${child.label} exited (code ${String(code)}); stopping the service`);
    void shutdown(code || 1);
  });
}

for (let i = 0; i < gateways; i++) {
  const url = `http://127.0.0.1:${basePort + i}`;
  if (await waitForHttp(`${url}/healthz`, 20_000)) say(`gateway listening on ${url}`);
}
say("create a key:  KEY=$(npm run --silent keys -- create --name demo)   then see README 'Quick start'. Ctrl-C stops everything.");
