import { parseArgs } from "node:util";
import {
  COMMON_ENV,
  ConfigError,
  GATEWAY_LISTEN_ENV,
  loadConfig,
  WORKER_LAUNCH_ENV,
  type ConfigOf,
  type EnvSchema,
} from "@chorus/platform/config";
import { parseCommandLine } from "@chorus/platform/process";
import { defaultRedisDataDir } from "./redis-choice.js";

export const USAGE = `usage: npm start [-- [--gateways N] [--workers M] [--redis-data DIR|none] [--private-redis] [--share-prefix]]

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

export interface StartCommand {
  gateways: number;
  workers: number;
  /** The private redis-server's data directory, or "none". */
  redisData: string;
  /** --redis-data or CHORUS_REDIS_DATA was given (it only matters for a private Redis). */
  redisDataChosen: boolean;
  privateRedis: boolean;
  sharePrefix: boolean;
  prefix: string;
  /** The gateways' PORT (the first; the others follow) and HOST, by the gateway's own schema. */
  gateway: ConfigOf<typeof GATEWAY_LISTEN_ENV>;
  /** The workers' health port and host and their llama.cpp threads, by the worker's own schema. */
  worker: ConfigOf<typeof WORKER_LAUNCH_ENV>;
  /** Which of those the operator set (the launcher chooses for the others). */
  workerPortSet: boolean;
  threadsSet: boolean;
}

function refuse(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

/** Loads `schema` from `env`, adding a refused variable's problems to `problems` (undefined then). */
function loadInto<S extends EnvSchema>(schema: S, env: NodeJS.ProcessEnv, problems: string[]): ConfigOf<S> | undefined {
  try {
    return loadConfig(schema, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
    return undefined;
  }
}

/**
 * The settings the apps would read, by their own schemas: a bad value is refused here, by the same rule, all at once.
 */
function appSettings(env: NodeJS.ProcessEnv) {
  const problems: string[] = [];
  const common = loadInto({ REDIS_PREFIX: COMMON_ENV.REDIS_PREFIX }, env, problems);
  const gateway = loadInto(GATEWAY_LISTEN_ENV, env, problems);
  const worker = loadInto(WORKER_LAUNCH_ENV, env, problems);
  if (!common || !gateway || !worker) refuse(new ConfigError(problems).message);
  return { prefix: common.REDIS_PREFIX, gateway, worker };
}

/** `npm start`'s options and the environment it reads; exits 2 with the usage on anything it cannot use. */
export function readStartCommand(args: string[], env: NodeJS.ProcessEnv): StartCommand {
  const { values } = parseCommandLine(
    USAGE,
    (argv) =>
      parseArgs({
        args: argv,
        options: {
          gateways: { type: "string", default: "1" },
          workers: { type: "string", default: "1" },
          "redis-data": { type: "string", default: env.CHORUS_REDIS_DATA || defaultRedisDataDir(env) },
          "private-redis": { type: "boolean", default: false },
          "share-prefix": { type: "boolean", default: false },
        },
      }),
    args,
  );
  const gateways = Number(values.gateways);
  const workers = Number(values.workers);
  if (![gateways, workers].every(Number.isInteger) || gateways < 1 || workers < 1 || !values["redis-data"]) {
    refuse("--gateways and --workers take whole numbers >= 1, --redis-data a directory or none");
  }
  const servedApart = ["REDIS_SENTINELS", "REDIS_CLUSTER_NODES"].find((name) => env[name]);
  if (servedApart) {
    // The launcher picks or starts one Redis and hands its URL to every process; Sentinel and Cluster are for services
    // run apart.
    process.stderr.write(
      `npm start runs on one Redis (REDIS_URL, 127.0.0.1:6379 or a private one); with ${servedApart} run each process with npm run gateway / npm run worker (docs/operations.md, Redis Sentinel and Redis Cluster)\n`,
    );
    process.exit(2);
  }
  return {
    gateways,
    workers,
    redisData: values["redis-data"],
    redisDataChosen: Boolean(env.CHORUS_REDIS_DATA) || args.some((arg) => arg.startsWith("--redis-data")),
    privateRedis: values["private-redis"],
    sharePrefix: values["share-prefix"],
    ...appSettings(env),
    workerPortSet: Boolean(env.WORKER_HTTP_PORT),
    threadsSet: Boolean(env.LLM_THREADS),
  };
}
