import { createWorkerRedis, redisKeys, type RedisClient, type RedisKeys } from "@chorus/platform/redis";
import { workerSlotsEntry } from "@chorus/platform/scheduler";
import { deleteKeysWithPrefix, TEST_REDIS, uniquePrefix } from "../../../test-support/redis.js";
import { RoutingStore } from "../src/routing/routing-store.js";

/** What routing keeps in Redis, on a real Redis: holders, claims, heartbeats, the dead. */
describe("RoutingStore (real Redis)", () => {
  let redis: RedisClient;
  let prefix: string;
  let store: RoutingStore;
  let keys: RedisKeys;
  const options = { prefixTtlMs: 60_000, heartbeatTtlMs: 60_000, claimTtlMs: 60_000, leaseTtlMs: 60_000 };

  beforeAll(() => {
    redis = createWorkerRedis(TEST_REDIS);
  });
  beforeEach(() => {
    prefix = uniquePrefix("routing-store");
    keys = redisKeys(prefix);
    store = new RoutingStore(redis, keys, options);
  });
  afterEach(async () => deleteKeysWithPrefix(TEST_REDIS, prefix));
  afterAll(() => redis.disconnect());

  const die = (workerId: string) => store.leave(workerId);

  it("when several live workers hold prefixes of a prompt, then the one with the longest is named, with its slots", async () => {
    await Promise.all([store.beat("a", 2), store.beat("b", 4)]);
    await store.publish(["p1", "p2"], "a");
    await store.publish(["p1", "p2", "p3"], "b");
    expect(await store.holderOf(["p1", "p2", "p3", "p4"])).toEqual({ workerId: "b", slots: 4, matched: 3 });
    expect(await store.holderOf(["p9"])).toBeNull();
    expect(await store.holderOf([])).toBeNull();
  });

  it("when the worker with the longest prefix is dead, then a live one with a shorter prefix is named", async () => {
    await Promise.all([store.beat("a", 2), store.beat("b", 2)]);
    await store.publish(["p1"], "a");
    await store.publish(["p1", "p2"], "b");
    await store.publish(["p1"], "a");
    await die("b");
    expect(await store.holderOf(["p1", "p2"])).toEqual({ workerId: "a", slots: 2, matched: 1 });
    await die("a");
    expect(await store.holderOf(["p1", "p2"])).toBeNull();
  });

  /** The lease of the worker running the job lapses (its worker died): as its expiry would. */
  const leaseLapses = (requestId: string) => redis.del(keys.routingLease(requestId));

  it("when a job is handed over and its worker takes it first, then only that copy runs, watched until its lease lapses and it is taken over", async () => {
    expect(await store.claimShared("job", "x")).toEqual({ kind: "free" });
    expect(await store.markHanded("job", "w")).toBe(true);
    expect(await store.markHanded("job", "x")).toBe(false);
    expect([await store.isHandedTo("job", "w"), await store.isHandedTo("job", "x")]).toEqual([true, false]);
    expect(await store.claimBuffer("job", "x")).toBe(false);
    expect(await store.claimBuffer("job", "w")).toBe(true);
    expect(await store.claimShared("job", "x")).toEqual({ kind: "running", owner: "w" });
    expect(await store.leaseHeld("job")).toBe(true);
    // Not while the worker running it holds its lease.
    expect(await store.takeOver("job", "w", "x")).toBe(false);
    await leaseLapses("job");
    expect(await store.leaseHeld("job")).toBe(false);
    // Only from the worker the claim names.
    expect(await store.takeOver("job", "v", "x")).toBe(false);
    expect(await store.takeOver("job", "w", "x")).toBe(true);
    expect(await store.renewLease("job", "w")).toBe(false);
    expect(await store.claimBuffer("job", "w")).toBe(false);
    // The shared copy coming back after its own run ended runs again.
    expect(await store.claimShared("job", "y")).toEqual({ kind: "again" });
  });

  it("when a handed-over job comes back to the shared queue before its worker took it, then it is stolen and that worker's copy stands aside", async () => {
    expect(await store.markHanded("job", "w")).toBe(true);
    expect(await store.claimShared("job", "x")).toEqual({ kind: "stolen", from: "w" });
    expect(await store.isHandedTo("job", "w")).toBe(false);
    expect(await store.claimBuffer("job", "w")).toBe(false);
    await store.forget("job");
    expect(await store.claimShared("job", "x")).toEqual({ kind: "free" });
  });

  it("when a running copy's lease lapsed while Redis refused writes, then its renewal sets it again, unless the job was taken over", async () => {
    expect(await store.markHanded("job", "w")).toBe(true);
    expect(await store.claimBuffer("job", "w")).toBe(true);
    await leaseLapses("job");
    expect(await store.renewLease("job", "w")).toBe(true);
    expect(await store.takeOver("job", "w", "x")).toBe(false);
    await leaseLapses("job");
    expect(await store.takeOver("job", "w", "x")).toBe(true);
    expect(await store.renewLease("job", "w")).toBe(false);
    expect(await store.leaseHeld("job")).toBe(false);
  });

  it("when a hand-over's reply was lost, then taking the job back settles which copy runs: the shared one, or the copy that claimed it first", async () => {
    expect(await store.markHanded("job", "w")).toBe(true);
    expect(await store.takeBack("job", "v", "x")).toBe(false);
    expect(await store.takeBack("job", "w", "x")).toBe(true);
    expect(await store.claimBuffer("job", "w")).toBe(false);
    expect(await store.claimShared("job", "x")).toEqual({ kind: "again" });

    expect(await store.markHanded("other", "w")).toBe(true);
    expect(await store.claimBuffer("other", "w")).toBe(true);
    expect(await store.takeBack("other", "w", "x")).toBe(false);
    expect(await store.claimShared("other", "x")).toEqual({ kind: "running", owner: "w" });
  });

  it("when a job's record is final, then its claim and lease are forgotten", async () => {
    expect(await store.markHanded("job", "w")).toBe(true);
    expect(await store.claimBuffer("job", "w")).toBe(true);
    await store.forget("job");
    expect([await redis.exists(keys.routingClaim("job")), await store.leaseHeld("job")]).toEqual([0, false]);
  });

  it("when claims and leases are written, then every one expires", async () => {
    expect(await store.markHanded("job", "w")).toBe(true);
    expect(await store.claimBuffer("job", "w")).toBe(true);
    const ttls = await Promise.all([redis.pttl(keys.routingClaim("job")), redis.pttl(keys.routingLease("job"))]);
    for (const ttl of ttls) expect(ttl).toBeGreaterThan(0);
  });

  it("when a worker's copy fails and gives the job back, then the shared copy fails that attempt with its reason, once", async () => {
    expect(await store.markHanded("job", "w")).toBe(true);
    expect(await store.claimBuffer("job", "w")).toBe(true);
    expect(await store.giveBack("job", "x", "not yours")).toBe(false);
    expect(await store.giveBack("job", "w", "engine down")).toBe(true);
    expect(await store.claimShared("job", "x")).toEqual({ kind: "failed", reason: "engine down" });
    // The retry starts afresh.
    expect(await store.claimShared("job", "x")).toEqual({ kind: "free" });
  });

  it("when asked which workers live, then those whose heartbeat lasts, in the order asked", async () => {
    await Promise.all([store.beat("a", 2), store.beat("b", 2)]);
    await die("b");
    expect(await store.alive(["b", "a", "never"])).toEqual([false, true, false]);
    expect(await store.alive([])).toEqual([]);
  });

  it("when a worker's heartbeat lapses, then it counts as dead only once its slots entry has expired too", async () => {
    const keys = redisKeys(prefix);
    await Promise.all([store.beat("gone", 1), store.beat("blip", 1), store.beat("live", 1)]);
    const now = Date.now();
    await redis.hset(
      keys.workerSlots(),
      "gone",
      workerSlotsEntry(1, now - 1),
      "blip",
      workerSlotsEntry(1, now + 30_000),
    );
    await Promise.all([die("gone"), die("blip")]);
    expect(await store.deadWorkers(now)).toEqual(["gone"]);
    await store.dropWorker("gone");
    expect(await store.deadWorkers(now)).toEqual([]);
  });
});
