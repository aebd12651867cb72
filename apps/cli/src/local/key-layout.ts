import { createWorkerRedis, jobsLeftBehind, migrateKeyLayout } from "@chorus/platform/redis";

/**
 * `npm start` takes the upgrade step itself (`npm run migrate`, docs/operations.md: Upgrading) on
 * the Redis it runs on, before its apps start: they refuse an earlier release's keys. Not when it
 * joins another deployment's workers (--share-prefix): those may be of the earlier release still.
 * When Redis cannot be asked, the apps say why themselves.
 */
export async function migrateBeforeStart(url: string, prefix: string, say: (line: string) => void): Promise<void> {
  const redis = createWorkerRedis(url, { maxRetriesPerRequest: 1, retryStrategy: () => null });
  redis.on("error", () => undefined);
  try {
    const { moved, jobsLeft } = await migrateKeyLayout(redis, prefix);
    if (moved > 0) say(`moved ${moved} Redis key(s) of an earlier release to this release's layout (npm run migrate)`);
    if (jobsLeft > 0) say(jobsLeftBehind(jobsLeft));
  } catch {
    // Said by the apps, which wait for Redis or refuse the keys with the way out.
  } finally {
    redis.disconnect();
  }
}
