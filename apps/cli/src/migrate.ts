import { parseArgs } from "node:util";
import { parseCommandLine } from "@chorus/platform/process";
import { jobsLeftBehind, KEY_LAYOUT, migrateKeyLayout, readKeyLayout, type RedisClient } from "@chorus/platform/redis";
import { runOnRedis } from "./command-redis.js";

const USAGE = `usage: npm run migrate [-- --check]

Moves what an earlier Chorus release wrote to Redis (keys without hash tags: API keys, usage,
records, spoken replies, listings, idempotency keys) to this release's names, once, before this
release's gateways and workers start (they refuse to start on an earlier release's keys).
Safe to run again: it says there is nothing to do. Jobs still in the earlier release's queue are not
moved: drain it first (docs/operations.md, Upgrading).

  --check     only say whether a migration is needed (exit 3 if it is), change nothing
exit codes: 0 done or nothing to do, 3 (--check) a migration is needed, 1 Redis could not be used
Redis: REDIS_URL, REDIS_SENTINELS + REDIS_SENTINEL_MASTER or REDIS_CLUSTER_NODES (and REDIS_PREFIX), else the private Redis of a running npm start, else 127.0.0.1:6379`;

/** --check's exit code when the keys of an earlier release are waiting to be moved. */
const NEEDED = 3;

const { values } = parseCommandLine(USAGE, (args) =>
  parseArgs({ args, options: { check: { type: "boolean", default: false } } }),
);
const say = (line: string) => process.stdout.write(`migrate: ${line}\n`);

/** --check: says whether a migration is needed, changes nothing. */
async function check(redis: RedisClient, prefix: string): Promise<void> {
  const state = await readKeyLayout(redis, prefix);
  say(
    state === "earlier"
      ? `prefix '${prefix}' holds keys of an earlier release: run npm run migrate`
      : `prefix '${prefix}' needs no migration (${state})`,
  );
  if (state === "earlier") process.exitCode = NEEDED;
}

async function migrate(redis: RedisClient, prefix: string): Promise<void> {
  const { before, moved, jobsLeft } = await migrateKeyLayout(redis, prefix);
  say(
    before === "current"
      ? `prefix '${prefix}' is on key layout ${KEY_LAYOUT} already: nothing to do`
      : `moved ${moved} key(s) under prefix '${prefix}' to key layout ${KEY_LAYOUT}`,
  );
  if (jobsLeft > 0) say(jobsLeftBehind(jobsLeft));
}

await runOnRedis("migrate", values.check ? check : migrate, () => false);
