import { spawnSync } from "node:child_process";
import type { RequestsListPage, StatusRecord } from "@chorus/contracts";
import { KEY_LAYOUT, readKeyLayout, requireCurrentKeyLayout } from "@chorus/platform/redis";
import request from "supertest";
import { defaultRequest } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { MIGRATE_SCRIPT } from "../../../test-support/local-service.js";
import { startApp } from "../../../test-support/processes.js";
import { deleteKeysWithPrefix, TEST_REDIS_URL, uniquePrefix } from "../../../test-support/redis.js";
import { submittedId } from "../../../test-support/response-body.js";

/**
 * An upgrade from the release before hash tags (key layout 1): the operator runs `npm run migrate`
 * once, which renames what the earlier release wrote, so API keys, records, listings and usage
 * survive; until then this release's gateway and worker refuse to start on those keys. The names of
 * layout 1 are written out here as that release's redis-keys.ts built them: the oracle, kept apart
 * from the code under test.
 */
let gw: TestGateway;
let prefix: string;

/** Today's name of a key -> the name layout 1 gave it (null: a key layout 1 did not have). */
function layoutOneName(key: string): string | null {
  const rest = key.slice(prefix.length + 1);
  const rules: [RegExp, (m: RegExpMatchArray) => string][] = [
    [/^apikeys:\{registry\}:secret:(.+)$/, (m) => `apikey:${m[1]}`],
    [/^apikeys:\{registry\}:ids$/, () => "apikeys"],
    [/^apikeys:\{registry\}:names$/, () => "apikey-names"],
    [/^status:\{(.+)\}$/, (m) => `status:${m[1]}`],
    [/^text-requests:\{(.+)\}$/, (m) => `text-requests:by-key:${m[1]}`],
    [/^usage:\{(.+)\}:(.+)$/, (m) => `usage:${m[1]}:${m[2]}`],
    [/^text-queue:\{text-generation\}:unfinished$/, () => "text-requests:unfinished"],
    [/^text-queue:\{text-generation\}:tickets$/, () => "queue-tickets:text:accepted"],
    [/^idempotency:\{(.+?)\}:(.+)$/, (m) => `idempotency:${m[1]}:${m[2]}`],
    [/^audio:\{(.+)\}$/, (m) => `audio:${m[1]}`],
    [/^audio-meta:\{(.+)\}$/, (m) => `audio-meta:${m[1]}`],
  ];
  for (const [pattern, name] of rules) {
    const match = rest.match(pattern);
    if (match) return `${prefix}:${name(match)}`;
  }
  return null;
}

/** Puts every key under the prefix back where layout 1 kept it (and drops what it did not have). */
async function downgradeToLayoutOne(): Promise<void> {
  const { redis } = gw.deps;
  const keys = await redis.keys(`${prefix}:*`);
  for (const key of keys) {
    const old = layoutOneName(key);
    if (old) await redis.rename(key, old);
    else await redis.del(key);
  }
}

/** `npm run migrate [-- args]` on the test Redis and prefix: its exit code and what it printed. */
function migrate(...args: string[]): { status: number | null; output: string } {
  const env = { ...process.env, REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix };
  const result = spawnSync(process.execPath, [MIGRATE_SCRIPT, ...args], { encoding: "utf8", timeout: 30_000, env });
  return { status: result.status, output: result.stdout + result.stderr };
}

beforeAll(async () => {
  prefix = uniquePrefix("layout");
  // No key cache: every request reads the key from Redis, where the upgrade must find it.
  gw = await startTestGateway(prefix, { KEY_CACHE_TTL_MS: "0" });
});
afterAll(() => gw.close());

describe("upgrading from key layout 1", () => {
  it("when a deployment of layout 1 starts on this release, then its API keys, records, audio, listing, idempotency keys and usage are there", async () => {
    const secret = await gw.createKey();
    const keyId = (await gw.deps.apiKeys.findBySecret(secret))!.id;
    const submit = (idempotencyKey: string) =>
      request(gw.app)
        .post("/api/text/default")
        .auth(secret, { type: "bearer" })
        .set("Idempotency-Key", idempotencyKey)
        .send(defaultRequest());
    const done = submittedId(await submit("first"));
    const waiting = submittedId(await submit("second"));
    await gw.deps.statuses.complete(done, {
      reply: "Once upon a time.",
      tokens: 5,
      promptTokens: 20,
      cachedTokens: 0,
      processingTime: 0.5,
      droppedMessages: 0,
      finishReason: "stop",
      maxTokens: 150,
    });
    await gw.deps.redis.set(gw.deps.keys.audio(done), "RIFF");
    await gw.deps.usage.countRequests(keyId, { text: 7 });
    await gw.deps.requestCounts.flush(); // the submits' own counts, which the gateway holds for a second

    await downgradeToLayoutOne();
    // As this release reads it before the move: the key is unknown.
    expect((await request(gw.app).get(`/api/v2/status/${done}`).auth(secret, { type: "bearer" })).status).toBe(401);
    // A process of this release counted before the move: the two days' counters are added up.
    await gw.deps.usage.countRequests(keyId, { text: 100 });

    // The gateway and the worker of this release refuse to start on it, naming the step to take.
    for (const app of ["gateway", "worker"] as const) {
      // A worker whose engine is never asked: it gets to the check in a second.
      const noModel = {
        LLM_ENGINE: "openai-compatible",
        LLM_BASE_URL: "http://127.0.0.1:1/v1",
        LLM_MODEL: "never-asked",
        TTS_ENGINE: "none",
      };
      const refused = startApp(app, { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix, PORT: "0", ...noModel });
      expect(await refused.exited).toBe(1);
      expect(refused.output()).toContain(`Redis holds keys of an earlier Chorus release under prefix '${prefix}'`);
      expect(refused.output()).toContain("run `npm run migrate`");
    }
    expect(migrate("--check")).toEqual({
      status: 3,
      output: `migrate: prefix '${prefix}' holds keys of an earlier release: run npm run migrate\n`,
    });

    const migrated = migrate();
    expect(migrated.status).toBe(0);
    expect(Number(/moved (\d+) key\(s\)/.exec(migrated.output)?.[1])).toBeGreaterThanOrEqual(9);
    const status = await request(gw.app).get(`/api/v2/status/${done}`).auth(secret, { type: "bearer" });
    const record = status.body as StatusRecord;
    expect([status.status, record.status, record.reply]).toEqual([200, "completed", "Once upon a time."]);
    expect(await gw.deps.redis.get(gw.deps.keys.audio(done))).toBe("RIFF");
    const listing = await request(gw.app).get("/api/v2/requests").auth(secret, { type: "bearer" });
    expect((listing.body as RequestsListPage).data.map((entry) => entry.id).sort()).toEqual([done, waiting].sort());
    // A retry of an earlier submit is answered with its first id, not queued again.
    expect(submittedId(await submit("second"))).toBe(waiting);
    await gw.deps.requestCounts.flush();
    const [today] = (await gw.deps.usage.lastDays(keyId)).slice(-1);
    // Counted before, the two submits, after the downgrade, the retry
    expect(today?.requests.text).toBe(7 + 2 + 100 + 1);
    expect((await gw.deps.apiKeys.list()).map((key) => key.id)).toEqual([keyId]);
    // The record still processing is where the sweep looks; the finished one is not.
    expect(await gw.deps.statuses.unfinished(Date.now(), 0, 10)).toEqual([waiting]);
    // Nothing of layout 1 is left.
    expect(await gw.deps.redis.keys(`${prefix}:apikey:*`)).toEqual([]);
    expect(
      await gw.deps.redis.exists(
        `${prefix}:apikeys`,
        `${prefix}:apikey-names`,
        `${prefix}:status:${done}`,
        `${prefix}:audio:${done}`,
        `${prefix}:usage:${keyId}:${today?.date}`,
      ),
    ).toBe(0);
  });

  it("when the move has been made, then running it again changes nothing and says so", () => {
    expect(migrate()).toEqual({
      status: 0,
      output: `migrate: prefix '${prefix}' is on key layout ${KEY_LAYOUT} already: nothing to do\n`,
    });
    expect(migrate("--check")).toEqual({
      status: 0,
      output: `migrate: prefix '${prefix}' needs no migration (current)\n`,
    });
  });
});

describe("a deployment with nothing in Redis yet", () => {
  const fresh = uniquePrefix("layout-fresh");
  afterAll(() => deleteKeysWithPrefix(TEST_REDIS_URL, fresh));

  it("when a process of this release starts on an empty prefix, then it marks today's layout and needs no migration", async () => {
    expect(await readKeyLayout(gw.deps.redis, fresh)).toBe("empty");
    await requireCurrentKeyLayout(gw.deps.redis, fresh);
    expect(await readKeyLayout(gw.deps.redis, fresh)).toBe("current");
    expect(await gw.deps.redis.get(`${fresh}:key-layout`)).toBe(KEY_LAYOUT);
  });
});
