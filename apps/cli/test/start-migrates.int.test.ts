import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiKeyStore } from "@chorus/platform/api-keys";
import { createWorkerRedis, redisKeys, type RedisClient } from "@chorus/platform/redis";
import { freePort } from "@chorus/local-runtime";
import { quickServiceEnv, runInOwnGroup, START_SCRIPT, waitForText } from "../../../test-support/local-service.js";
import { deleteKeysWithPrefix, TEST_REDIS_URL, uniquePrefix } from "../../../test-support/redis.js";

/**
 * `npm start` on a Redis that an earlier release wrote (key layout 1, before hash tags) takes the
 * upgrade step itself (`npm run migrate`) before its apps start, which would refuse those keys.
 */
const prefix = uniquePrefix("start-migrates");
let dir: string;
let redis: RedisClient;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "chorus-start-migrates-"));
  redis = createWorkerRedis(TEST_REDIS_URL);
});
afterAll(async () => {
  redis.disconnect();
  await rm(dir, { recursive: true, force: true });
  await deleteKeysWithPrefix(TEST_REDIS_URL, prefix);
});

/**
 * An API key as the earlier release kept it: today's keys renamed to layout 1's (an oracle written out, not the code
 * under test).
 */
async function keyOfEarlierRelease(): Promise<string> {
  const { secret } = await new ApiKeyStore(redis, redisKeys(prefix)).create("from-before", ["*"], {});
  const renames: [RegExp, (m: RegExpMatchArray) => string][] = [
    [/:apikeys:\{registry\}:secret:(.+)$/, (m) => `apikey:${m[1]}`],
    [/:apikeys:\{registry\}:ids$/, () => "apikeys"],
    [/:apikeys:\{registry\}:names$/, () => "apikey-names"],
  ];
  for (const key of await redis.keys(`${prefix}:*`)) {
    const rule = renames.find(([pattern]) => pattern.test(key));
    if (rule) await redis.rename(key, `${prefix}:${rule[1](key.match(rule[0])!)}`);
    else await redis.del(key);
  }
  return secret;
}

describe("npm start on an earlier release's keys", () => {
  it("when started, then it moves them to this release's layout, starts, and the earlier API key works", async () => {
    const secret = await keyOfEarlierRelease();
    const port = await freePort();
    const run = runInOwnGroup(process.execPath, [START_SCRIPT], {
      ...quickServiceEnv(dir, port),
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
    });
    try {
      await waitForText(run, /\[start\] ready/);
      expect(run.output()).toContain(
        "[start] moved 3 Redis key(s) of an earlier release to this release's layout (npm run migrate)",
      );
      const listed = await fetch(`http://127.0.0.1:${port}/api/v2/requests`, {
        headers: { Authorization: `Bearer ${secret}` },
      });
      expect(listed.status).toBe(200);
    } finally {
      process.kill(-run.pid, "SIGINT");
      await run.exited;
    }
  });
});
