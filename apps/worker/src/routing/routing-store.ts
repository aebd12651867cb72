import { defineLuaScripts, type LuaCommand, type RedisClient, type RedisKeys } from "@chorus/platform/redis";
import { isExpiredWorkerSlotsEntry } from "@chorus/platform/scheduler";

/**
 * What cache-aware routing keeps in Redis: which worker holds which conversation prefix,
 * which workers are alive, and who runs each routed job. All of it shares one hash tag
 * (`{routing}`, redis-keys.ts), so one script reads a prefix's holder and that holder's heartbeat on
 * a Redis Cluster as well.
 *
 * A routed job has two copies: the shared queue's job, which stays (delayed, then watching) until
 * the record is final, and a copy in the chosen worker's hand-over queue. Its claim says which copy
 * runs: `handed:<w>` (waiting in w's hand-over queue), `buffer:<w>` (w runs it from there),
 * `shared:<w>` (w runs the shared copy), `failed:<reason>` (w's copy failed and gave the job back
 * for the shared copy to retry). Every move is compare-and-set in one script, so one copy runs at a
 * time, and the shared copy takes over whatever a slow, failed or dead worker left. A copy that runs
 * holds a short lease it renews; the shared copy takes over only once that lease has lapsed. Claims
 * and leases expire, so nothing a dead worker or a lost reply left behind holds a job for ever.
 */

/**
 * What the shared queue's copy of a job may do, as its claim says (claim-shared-1.lua): run (never routed,
 * or run here before), take it from the worker it waited for, watch the worker running it, or fail
 * this attempt as that worker's copy failed.
 */
export type SharedClaim =
  | { kind: "free" | "again" }
  | { kind: "stolen"; from: string }
  | { kind: "running"; owner: string }
  | { kind: "failed"; reason: string };

/** A live worker that holds a prefix of a job's prompt: the longest one found. */
export interface PrefixHolder {
  workerId: string;
  slots: number;
  /** How many of the job's message boundaries it holds. */
  matched: number;
}

/** The holder lookup (holders and heartbeats in one read) and the claim moves (each a compare-and-set). */
const SCRIPTS = {
  holderOf: "find-prefix-holder.lua",
  claimShared: "claim-shared-1.lua",
  claimBuffer: "claim-buffer-2.lua",
  renewLease: "renew-lease-2.lua",
  takeOver: "take-over-2.lua",
  swapClaim: "swap-claim-1.lua",
} as const;

export interface RoutingStoreOptions {
  /** How long a published prefix names its worker (the engine may drop it sooner: then it is only a miss). */
  prefixTtlMs: number;
  /** How long a heartbeat lasts: a worker silent this long counts as dead. */
  heartbeatTtlMs: number;
  /** How long a claim lasts: longer than any job runs. */
  claimTtlMs: number;
  /** How long a running copy's lease lasts unrenewed: a worker silent this long may have its job taken over. */
  leaseTtlMs: number;
}

export class RoutingStore {
  private readonly scripts: Record<keyof typeof SCRIPTS, LuaCommand>;
  private readonly alivePrefix: string;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly options: RoutingStoreOptions,
  ) {
    this.scripts = defineLuaScripts(redis, new URL("../lua/", import.meta.url), SCRIPTS);
    this.alivePrefix = keys.routingWorkerAlive("");
  }

  /** The live worker holding the longest of these prefixes (shortest first, as conversationPrefixes gives them). */
  async holderOf(prefixes: readonly string[]): Promise<PrefixHolder | null> {
    if (prefixes.length === 0) return null;
    const keys = prefixes.map((hash) => this.keys.routingPrefix(hash)).reverse();
    const reply = (await this.scripts.holderOf(keys.length, ...keys, this.alivePrefix)) as
      [string, number, number] | [];
    if (reply.length === 0) return null;
    const [workerId, slots, index] = reply;
    return { workerId, slots, matched: prefixes.length - index + 1 };
  }

  /** Names `workerId` as the holder of these prefixes. */
  async publish(prefixes: readonly string[], workerId: string): Promise<void> {
    const pipeline = this.redis.pipeline();
    for (const hash of prefixes) pipeline.set(this.keys.routingPrefix(hash), workerId, "PX", this.options.prefixTtlMs);
    await pipeline.exec();
  }

  /** This worker is alive with `slots` engine slots, and has a hand-over queue. */
  async beat(workerId: string, slots: number): Promise<void> {
    await Promise.all([
      this.redis.set(this.keys.routingWorkerAlive(workerId), slots, "PX", this.options.heartbeatTtlMs),
      this.redis.sadd(this.keys.routingWorkers(), workerId),
    ]);
  }

  /** Whether each of these workers' heartbeats lasts (one round trip: the keys share a hash slot). */
  async alive(workerIds: readonly string[]): Promise<boolean[]> {
    if (workerIds.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of workerIds) pipeline.exists(this.keys.routingWorkerAlive(id));
    const replies = (await pipeline.exec()) ?? [];
    return replies.map(([error, count]) => {
      if (error) throw error;
      return count === 1;
    });
  }

  /** This worker stops: others stop handing it jobs at once. */
  async leave(workerId: string): Promise<void> {
    await this.redis.del(this.keys.routingWorkerAlive(workerId));
  }

  /** The shared copy of a job was taken: may it run here, is it running elsewhere, or did its copy fail? */
  async claimShared(requestId: string, workerId: string): Promise<SharedClaim> {
    const key = this.keys.routingClaim(requestId);
    const [kind, detail] = (await this.scripts.claimShared(key, workerId, this.options.claimTtlMs)) as [string, string];
    if (kind === "running") return { kind, owner: detail };
    if (kind === "failed") return { kind, reason: detail };
    if (kind === "stolen") return { kind, from: detail };
    return { kind: kind as "free" | "again" };
  }

  /** Whether the worker running the job's hand-over copy still renews its lease. */
  async leaseHeld(requestId: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.routingLease(requestId))) === 1;
  }

  /** `owner`'s lease on the job lapsed (its worker died or went silent): the shared copy runs it here. */
  async takeOver(requestId: string, owner: string, workerId: string): Promise<boolean> {
    const keys = [this.keys.routingClaim(requestId), this.keys.routingLease(requestId)];
    return (await this.scripts.takeOver(...keys, owner, workerId, this.options.claimTtlMs)) === 1;
  }

  /** Renews `workerId`'s lease on the job its copy runs; false once the claim names another copy. */
  async renewLease(requestId: string, workerId: string): Promise<boolean> {
    const keys = [this.keys.routingClaim(requestId), this.keys.routingLease(requestId)];
    return (await this.scripts.renewLease(...keys, workerId, this.options.leaseTtlMs)) === 1;
  }

  /**
   * The shared copy on `workerId` takes back a job it was handing to `target` (the hand-over's reply
   * was lost): true when it now runs here, false when the copy there claimed it first.
   */
  async takeBack(requestId: string, target: string, workerId: string): Promise<boolean> {
    return this.swap(requestId, `handed:${target}`, `shared:${workerId}`);
  }

  /** This worker's copy failed in a way a retry may mend: the shared copy fails this attempt with `reason`. */
  async giveBack(requestId: string, workerId: string, reason: string): Promise<boolean> {
    return this.swap(requestId, `buffer:${workerId}`, `failed:${reason}`);
  }

  private async swap(requestId: string, expected: string, next: string): Promise<boolean> {
    const key = this.keys.routingClaim(requestId);
    return (await this.scripts.swapClaim(key, expected, next, this.options.claimTtlMs)) === 1;
  }

  /** The job goes to `workerId`'s hand-over queue; false when another worker routed it first. */
  async markHanded(requestId: string, workerId: string): Promise<boolean> {
    const key = this.keys.routingClaim(requestId);
    return (await this.redis.set(key, `handed:${workerId}`, "PX", this.options.claimTtlMs, "NX")) === "OK";
  }

  /** Whether the job is still meant for `workerId`'s hand-over copy (waiting or running there). */
  async isHandedTo(requestId: string, workerId: string): Promise<boolean> {
    const claim = await this.redis.get(this.keys.routingClaim(requestId));
    return claim === `handed:${workerId}` || claim === `buffer:${workerId}`;
  }

  /** A hand-over copy has a slot on its worker: true when it is the copy to run. */
  async claimBuffer(requestId: string, workerId: string): Promise<boolean> {
    const keys = [this.keys.routingClaim(requestId), this.keys.routingLease(requestId)];
    const { claimTtlMs, leaseTtlMs } = this.options;
    return (await this.scripts.claimBuffer(...keys, workerId, claimTtlMs, leaseTtlMs)) === 1;
  }

  /** The job's record is final: its claim and lease are of no more use (both expire anyway). */
  async forget(requestId: string): Promise<void> {
    await this.redis.del(this.keys.routingClaim(requestId), this.keys.routingLease(requestId));
  }

  /** `workerId` has a hand-over queue: the sweep drops it once the worker is dead, even one that died just now. */
  async register(workerId: string): Promise<void> {
    await this.redis.sadd(this.keys.routingWorkers(), workerId);
  }

  /**
   * Ids of workers that had a hand-over queue, whose heartbeat has lapsed and whose entry in the
   * workers' slots (WorkerPresence, refreshed every 10 s) has expired too: gone for good, not a
   * worker that missed a few beats while Redis failed over.
   */
  async deadWorkers(now = Date.now()): Promise<string[]> {
    const ids = await this.redis.smembers(this.keys.routingWorkers());
    if (ids.length === 0) return [];
    const [alive, presence] = await Promise.all([
      Promise.all(ids.map((id) => this.redis.exists(this.keys.routingWorkerAlive(id)))),
      this.redis.hmget(this.keys.workerSlots(), ...ids),
    ]);
    return ids.filter((_, i) => {
      const entry = presence[i];
      return alive[i] === 0 && (entry === null || entry === undefined || isExpiredWorkerSlotsEntry(entry, now));
    });
  }

  async dropWorker(workerId: string): Promise<void> {
    await this.redis.srem(this.keys.routingWorkers(), workerId);
  }

  /** True for the one caller that may sweep now. */
  async takeSweepTurn(holdMs: number): Promise<boolean> {
    return (await this.redis.set(this.keys.routingSweepLock(), "1", "PX", holdMs, "NX")) === "OK";
  }
}
