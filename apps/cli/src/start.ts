import { randomUUID } from "node:crypto";
import { redactRedisUrl } from "@chorus/platform/redis";
import { migrateBeforeStart } from "./local/key-layout.js";
import {
  buildLlamaServerFirst,
  buildLlamaServerMeanwhile,
  planLlamaServerBuild,
  type BackgroundBuild,
} from "./local/llama-server-build.js";
import { LocalService } from "./local/local-service.js";
import { saveLocalRedis } from "./local/local-state.js";
import { chooseRedis, type RedisChoice } from "./local/redis-choice.js";
import { sharedPrefixRefusal, workersAlreadyOnPrefix } from "./local/shared-prefix.js";
import { readStartCommand, type StartCommand } from "./local/start-command.js";

/** `npm start`: the whole local service (local/start-command.ts's usage says what it does). */
const say = (line: string) => process.stdout.write(`[start] ${line}\n`);

/**
 * Another deployment's workers on this Redis and prefix would take our jobs (and we theirs): refuse
 * unless asked to share. Returns how many are joined.
 */
async function refuseSharedPrefix(command: StartCommand, url: string): Promise<number> {
  const others = await workersAlreadyOnPrefix(url, command.prefix);
  if (!others) return 0;
  if (!command.sharePrefix) {
    process.stderr.write(`npm start: ${sharedPrefixRefusal(url, command.prefix, others)}\n`);
    process.exit(2);
  }
  say(`joining ${others} live worker(s) already on key prefix '${command.prefix}' (--share-prefix)`);
  return others;
}

/** The Redis this run uses, checked for another deployment on its prefix and for an earlier release's keys. */
async function prepareRedis(command: StartCommand): Promise<RedisChoice> {
  const redis = await chooseRedis({ privateRedis: command.privateRedis, dataDir: command.redisData }, say).catch(
    (error: unknown) => {
      say(`could not start a private redis-server: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
  say(`Redis: ${redactRedisUrl(redis.url)}, key prefix '${command.prefix}' (REDIS_PREFIX)`);
  if (redis.owned) saveLocalRedis({ redisUrl: redis.url, prefix: command.prefix });
  const joined = redis.owned ? 0 : await refuseSharedPrefix(command, redis.url);
  if (joined === 0) await migrateBeforeStart(redis.url, command.prefix, say);
  if (!redis.owned && command.redisDataChosen)
    say(
      "--redis-data / CHORUS_REDIS_DATA choose the data of a private redis-server only; this one is not (--private-redis starts one)",
    );
  return redis;
}

/**
 * The worker's llama.cpp engine is 1.5-4x faster as llama-server built for this machine: built
 * before the workers start only when they need it to start (LLAMA_RUNTIME=server); else the workers
 * start on node-llama-cpp's prebuilt binary and it is built meanwhile (local/llama-server-build.ts).
 */
function startLlamaServerBuild(): BackgroundBuild | undefined {
  const plan = planLlamaServerBuild(process.env);
  if (plan === "first" && !buildLlamaServerFirst(process.env))
    say("llama-server could not be built: LLAMA_RUNTIME=server workers cannot start (npm run llama:build -- --help)");
  if (plan !== "meanwhile") return undefined;
  say(
    "llama-server is not built for this machine yet: the workers start now on node-llama-cpp's prebuilt binary (1.5-4x slower), and llama-server builds meanwhile at low CPU priority (~10 min on 2 cores); then each worker restarts onto it",
  );
  return buildLlamaServerMeanwhile(process.env);
}

const command = readStartCommand(process.argv.slice(2), process.env);
const redis = await prepareRedis(command);
// After the Redis checks: a refusal comes in seconds, not after a first build of minutes.
const build = startLlamaServerBuild();
/** This run's id: its gateways and workers answer it on their probes, so the waits know their own. */
const service = new LocalService(command, redis, build, randomUUID(), say);
// npm forwards the terminal's Ctrl-C to this process, which has it from the terminal too: one stop, said once.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    if (!service.isStopping)
      say(
        `${signal}: stopping the gateways, then the workers (running jobs finish, 30 s at most)${redis.owned ? ", then the private Redis" : ""}`,
      );
    void service.shutdown(0);
  });
}
await service.start();
