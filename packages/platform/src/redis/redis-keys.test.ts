import { describe, expect, it } from "@jest/globals";
import { type RedisKeys, redisKeys } from "./redis-keys.js";

/** Every key, key prefix or channel a RedisKeys builds, for the given argument. */
function allKeys(keys: RedisKeys, arg: string): string[] {
  return [
    keys.bullPrefix("q"),
    keys.status(arg),
    keys.apiKeyBySecretHash(arg),
    keys.apiKeyIndex(),
    keys.apiKeyNames(),
    keys.rateLimit(arg),
    keys.cancelChannel(),
    keys.statusFinalChannel(),
    keys.statusChangedChannel(),
    keys.replyDeltaChannel(),
    keys.textJobTickets(),
    keys.textJobsWaiting(),
    keys.textQueueTurns(),
    keys.textJobsBacklog(),
    keys.textRequestsInFlight(),
    keys.textRequestOwners(),
    keys.openStreamsOfApiKey(arg),
    keys.textRequestsUnfinished(),
    keys.textRequestsOfApiKey(arg),
    keys.lostJobSweepLock(),
    keys.bullJob("q", arg),
    keys.audio(arg),
    keys.audioMeta(arg),
    keys.audioStream(arg),
    keys.apiKeyUsage(arg, "2026-01-01"),
    keys.idempotency(arg, "k"),
    keys.textJobStats(),
    keys.workerSlots(),
    keys.replyLengthStats(),
    keys.modelFeatures(),
    keys.routingPrefix(arg),
    keys.routingClaim(arg),
    keys.routingWorkerAlive(arg),
    keys.routingWorkers(),
    keys.routingSweepLock(),
    keys.apiKeyWebhookSecrets(arg),
    keys.apiKeyLastUsed(),
    keys.usageMetered(arg, "job"),
    keys.webhookTurns(),
    keys.webhookPending(arg),
    keys.webhookBreakers(arg),
    keys.webhookQueueWaiting(),
    keys.budgetPeriod(arg, "2026-01"),
    keys.budgetHold(arg, "r"),
  ];
}

// Prefixes as REDIS_PREFIX allows them (^[A-Za-z0-9_.-]+$), chosen to be near one another.
const PREFIXES = ["chorus", "chorus-test", "chorus.test", "chorus_test", "chorus2", "c", "C", "test-1", "test-12"];
const ARGS = ["abc", "", "status:abc", "apikey:x", "bull", "rl:general", "a:b:c"];

describe("redisKeys", () => {
  it("when any key is built, then it starts with the prefix and a colon", () => {
    for (const prefix of PREFIXES) {
      for (const arg of ARGS) {
        for (const key of allKeys(redisKeys(prefix), arg)) expect(key.startsWith(`${prefix}:`)).toBe(true);
      }
    }
  });

  it("when keys are built, then they have the documented shapes", () => {
    const keys = redisKeys("p");
    expect(allKeys(keys, "x")).toEqual([
      "p:bull:{q}",
      "p:status:{x}",
      "p:apikeys:{registry}:secret:x",
      "p:apikeys:{registry}:ids",
      "p:apikeys:{registry}:names",
      "p:rl:x:",
      "p:cancel",
      "p:status-final",
      "p:status-changed",
      "p:reply-delta",
      "p:text-queue:{text-generation}:tickets",
      "p:text-queue:{text-generation}:waiting",
      "p:text-queue:{text-generation}:turns",
      "p:text-queue:{text-generation}:backlog",
      "p:text-queue:{text-generation}:in-flight",
      "p:text-queue:{text-generation}:owners",
      "p:open-streams:{x}",
      "p:text-queue:{text-generation}:unfinished",
      "p:text-requests:{x}",
      "p:lock:lost-job-sweep",
      "p:bull:{q}:q:x",
      "p:audio:{x}",
      "p:audio-meta:{x}",
      "p:audio-stream:{x}",
      "p:usage:{x}:2026-01-01",
      "p:idempotency:{x}:k",
      "p:text-queue:{text-generation}:job-stats",
      "p:text-queue:{text-generation}:worker-slots",
      "p:stats:reply-tokens",
      "p:model-features",
      "p:routing:{routing}:prefix:x",
      "p:routing:{routing}:claim:x",
      "p:routing:{routing}:alive:x",
      "p:routing:{routing}:workers",
      "p:routing:{routing}:sweep-lock",
      "p:apikeys:{registry}:webhook-secrets:x",
      "p:apikeys:{registry}:last-used",
      "p:usage-metered:{x}:job",
      "p:webhooks:{webhook-delivery}:turns",
      "p:webhooks:{webhook-delivery}:pending:x",
      "p:webhooks:{webhook-delivery}:breakers:x",
      "p:bull:{webhook-delivery}:webhook-delivery:prioritized",
      "p:budget:{x}:2026-01",
      "p:budget-hold:{x}:r",
    ]);
  });

  it("when two deployments use distinct prefixes, then none of their keys collide or fall in the other's namespace", () => {
    for (const a of PREFIXES) {
      for (const b of PREFIXES) {
        if (a === b) continue;
        const keysOfB = ARGS.flatMap((arg) => allKeys(redisKeys(b), arg));
        const keysOfA = new Set(ARGS.flatMap((arg) => allKeys(redisKeys(a), arg)));
        for (const key of keysOfB) {
          expect([a, key, keysOfA.has(key)]).toEqual([a, key, false]);
          expect([a, key, key.startsWith(`${a}:`)]).toEqual([a, key, false]);
        }
      }
    }
  });

  it("when one deployment builds keys of different kinds for the same id, then they differ", () => {
    const keys = redisKeys("chorus");
    for (const arg of ARGS) {
      const built = allKeys(keys, arg);
      expect(new Set(built).size).toBe(built.length);
    }
  });
});
