import { createWorkerRedis, redisKeys } from "@chorus/platform/redis";
import { workerSlotsEntry } from "@chorus/platform/scheduler";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@chorus/local-runtime";
import { quickServiceEnv, runInOwnGroup, START_SCRIPT, waitForText } from "../../../test-support/local-service.js";
import { deleteKeysWithPrefix, TEST_REDIS_URL, uniquePrefix } from "../../../test-support/redis.js";

/**
 * Two deployments on one Redis and one key prefix share queues and API keys: npm start
 * says which Redis and prefix it uses, and refuses to join workers that are already there unless
 * told to (--share-prefix).
 */
const prefix = uniquePrefix("shared-prefix");
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "chorus-shared-prefix-"));
  // Another deployment's worker, alive for a minute, as WorkerPresence announces one.
  const redis = createWorkerRedis(TEST_REDIS_URL);
  await redis.hset(
    redisKeys(prefix).workerSlots(),
    "other-deployment-worker",
    workerSlotsEntry(2, Date.now() + 60_000),
  );
  redis.disconnect();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await deleteKeysWithPrefix(TEST_REDIS_URL, prefix);
});

const start = async (...args: string[]) =>
  runInOwnGroup(process.execPath, [START_SCRIPT, ...args], {
    ...quickServiceEnv(dir, await freePort()),
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: prefix,
  });

describe("npm start on a Redis and key prefix that another deployment's workers serve", () => {
  it("when started as usual, then it names the Redis and prefix, refuses with the ways out, and exits 2 before starting anything", async () => {
    const run = await start();

    expect(await run.exited).toBe(2);
    expect(run.output()).toContain(`[start] Redis: ${TEST_REDIS_URL}, key prefix '${prefix}' (REDIS_PREFIX)`);
    expect(run.output()).toContain(
      `already has 1 live worker(s) under the key prefix '${prefix}', from another deployment`,
    );
    expect(run.output()).toContain("Set REDIS_PREFIX to a prefix of your own");
    expect(run.output()).toContain("--share-prefix");
    expect(run.output()).not.toMatch(/gateway listening|\[start\] ready/);
  });

  it("when started with --share-prefix, then it says it joins them and starts", async () => {
    const run = await start("--share-prefix");
    try {
      await waitForText(run, /\[start\] ready/);
      expect(run.output()).toContain(`joining 1 live worker(s) already on key prefix '${prefix}' (--share-prefix)`);
    } finally {
      process.kill(-run.process.pid!, "SIGINT");
      await run.exited;
    }
  });
});
