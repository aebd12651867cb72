import type { GenerateTextJob } from "@chorus/contracts";
import { type Logger } from "@chorus/platform/logger";
import { createHandoverQueue, createTextQueue } from "@chorus/platform/queues";
import { type RedisClient, type RedisKeys } from "@chorus/platform/redis";
import { type Job, type Queue } from "bullmq";
import type { GenerationResult } from "../processors/generate-text.processor.js";
import { conversationPrefixes, prefixesAfterReply } from "./conversation-prefixes.js";
import { runLeased } from "./copy-lease.js";
import type { PrefixHolder, RoutingStore } from "./routing-store.js";
import { SlotGate } from "./slot-gate.js";
import { stepAside } from "./step-aside.js";

/** A text job's id: its request id (BullMQ's job id is set to it). */
function jobIdOf(job: Job<GenerateTextJob>): string {
  return job.id ?? job.data.requestId;
}

/** Why a job taken from the shared queue ran where it did (the worker's routing_decisions_total). */
export type RoutingDecision =
  "preferred_here" | "handed_over" | "preferred_busy" | "no_match" | "stolen" | "taken_over";

/** What a copy returns when another copy of its job runs it: not a generation (metrics skip it). */
export interface RoutedCopy {
  routed: true;
}
export const ROUTED_COPY: RoutedCopy = { routed: true };

export type TextProcessor = (
  job: Job<GenerateTextJob>,
  token?: string,
  signal?: AbortSignal,
) => Promise<GenerationResult | RoutedCopy | undefined>;

export interface CacheRoutingOptions {
  workerId: string;
  slots: number;
  /** The longest a job handed to its preferred worker waits there before any free worker may take it. */
  maxWaitMs: number;
  /** How often the shared copy of a job running elsewhere checks that its runner lives. */
  watchIntervalMs: number;
  /**
   * How long a running copy's lease lasts unrenewed (it is renewed every heartbeat). The shared copy
   * that finds it lapsed waits this long again before it takes the job over: a runner cut off from
   * Redis for a while renews it first.
   */
  leaseTtlMs: number;
  /** How often this worker says it is alive (its heartbeat lasts three times as long). */
  heartbeatMs: number;
}

export interface CacheRoutingDeps {
  connection: RedisClient;
  keys: RedisKeys;
  store: RoutingStore;
  logger: Logger;
  recordRouting?: (decision: RoutingDecision) => void;
}

/**
 * Cache-aware routing: a text job goes to the worker whose engine holds the longest
 * prefix of its conversation when that worker can take it soon, else it runs where it was taken.
 *
 * Every worker takes jobs from the shared queue in fair-turn order, as without routing. The worker
 * that takes one looks up who holds its prompt. When another live worker does and has fewer jobs
 * waiting in its hand-over queue than it has slots, the job is copied there and the shared copy
 * steps aside (delayed by `maxWaitMs`); otherwise it runs here. The preferred worker runs its copy
 * when a slot frees; if it has not started it when the shared copy comes back, whichever worker
 * takes the shared copy runs it (stolen), and if the preferred worker dies while running it, the
 * shared copy, which watches the copy's lease until the record is final, runs it instead (taken over).
 * The claims in routing-store.ts make sure only one copy runs at a time; a Redis error on any step
 * keeps the job where it is safe (docs/operations.md, "Cache-aware routing") and spends no attempt.
 */
export class CacheRouting {
  readonly gate: SlotGate;
  private readonly handoverQueues = new Map<string, Queue<GenerateTextJob>>();
  private readonly sharedQueue: Queue<GenerateTextJob>;
  private timers: NodeJS.Timeout[] = [];
  /** Told how many hand-over jobs hold or wait for a slot (the shared queue's Worker takes fewer meanwhile). */
  onHandovers: (count: number) => void = () => undefined;

  constructor(
    private readonly deps: CacheRoutingDeps,
    readonly options: CacheRoutingOptions,
  ) {
    this.gate = new SlotGate(options.slots, (count) => this.onHandovers(count));
    this.sharedQueue = createTextQueue(deps.connection, deps.keys);
    this.sharedQueue.on("error", (error: Error) => deps.logger.warn("text queue error", { error: error.message }));
  }

  get workerId(): string {
    return this.options.workerId;
  }

  /**
   * The processor of the shared queue's jobs. Only a run here, or a copy that failed on its worker,
   * may throw into BullMQ (its failure is the job's); a copy that steps aside or watches looks again
   * later whatever Redis answers, so a hiccup never costs the job an attempt.
   */
  sharedProcessor(run: TextProcessor): TextProcessor {
    return async (job, token, signal) => {
      // A batch line has no next turn to keep near its cache, and is never handed over: it runs where taken.
      if (job.data.batchLine) return this.gate.run(() => run(job, token, signal));
      const id = jobIdOf(job);
      const later = (ms: number) => stepAside(job, token, ms, { logger: this.deps.logger, signal });
      // At a job's first pick-up the holder is looked up beside the claim, not after it: that claim is nearly always
      // free and needs it, and the job's first token waited for both. A copy that comes back (stepped aside, or
      // watching a copy running elsewhere, every second) looks up only when its claim is free.
      const early = this.handsOver && job.attemptsStarted <= 1 ? this.holderOfConversation(job) : null;
      early?.catch(() => undefined); // read, and its failure logged, by choose
      const claim = await this.attempt(() => this.deps.store.claimShared(id, this.workerId));
      if (!claim) return later(this.options.watchIntervalMs);
      switch (claim.kind) {
        case "running":
          return this.watch(job, token, signal, run, claim.owner);
        case "failed":
          // Its copy failed on the worker it was handed to: this attempt fails, and BullMQ retries it anywhere.
          throw new Error(claim.reason);
        case "stolen":
          this.decided("stolen", id);
          void this.dropCopy(claim.from, id);
          // It has waited for the busy worker already: it takes the next slot here.
          return this.gate.run(() => run(job, token, signal), { first: true });
        case "again":
          return this.gate.run(() => run(job, token, signal), { first: true });
        case "free":
          break;
      }
      const holding = early ?? (this.handsOver ? this.holderOfConversation(job) : null);
      const target = holding ? await this.attempt(() => this.choose(job, holding)) : null;
      const handed = target ? await this.handOver(job, target) : "here";
      if (handed === "handed") return later(this.options.maxWaitMs);
      // Unsure whether the copy was added: the claim decides, read again when the shared copy comes back.
      if (handed === "unsure") return later(this.options.watchIntervalMs);
      return this.gate.run(() => run(job, token, signal));
    };
  }

  /** The processor of this worker's hand-over queue: a job stepped aside for it does nothing. */
  handoverProcessor(run: TextProcessor): TextProcessor {
    return async (job, token, signal) => {
      const id = jobIdOf(job);
      if (!(await this.attempt(() => this.deps.store.isHandedTo(id, this.workerId)))) return ROUTED_COPY;
      // Claimed only once a slot is free: until then the shared copy may still be taken by a free worker.
      return this.gate.run(
        async () => {
          if (!(await this.attempt(() => this.deps.store.claimBuffer(id, this.workerId)))) return ROUTED_COPY;
          const lease = {
            store: this.deps.store,
            logger: this.deps.logger,
            requestId: id,
            workerId: this.workerId,
            renewMs: this.options.heartbeatMs,
          };
          // A record already final (cancelled while it waited) is skipped: not a generation.
          return (await runLeased(lease, (leased) => run(job, token, leased), signal)) ?? ROUTED_COPY;
        },
        { handover: true },
      );
    };
  }

  /**
   * A hand-over copy failed. A failure a retry cannot mend (cancel, time limit) is the job's: true, the
   * caller records it. Any other goes back to the shared copy, which fails an attempt with it and is
   * retried on any worker.
   */
  async copyFailed(requestId: string, error: Error, final: boolean): Promise<boolean> {
    if (final) return true;
    const reason = error.message.slice(0, 500);
    await this.deps.store.giveBack(requestId, this.workerId, reason).catch(() => false);
    return false;
  }

  /** Whether this worker hands jobs to others (ROUTE_MAX_WAIT_MS above 0); it honours claims either way. */
  get handsOver(): boolean {
    return this.options.maxWaitMs > 0;
  }

  /** What this worker's engine now holds, for the next turn to find (a batch line has none). */
  onReply = (job: GenerateTextJob, reply: string): void => {
    if (job.batchLine) return;
    this.deps.store.publish(prefixesAfterReply(job, reply), this.workerId).catch((error: unknown) => {
      this.deps.logger.warn("could not publish the conversation's prefixes", { error: String(error) });
    });
  };

  async start(): Promise<void> {
    await this.beat();
    const every = (ms: number, task: () => Promise<unknown>) => {
      const timer = setInterval(() => void task().catch(() => undefined), ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(this.options.heartbeatMs, () => this.beat());
    every(SWEEP_INTERVAL_MS, () => this.sweepDeadWorkers());
  }

  /** Stops the heartbeat: no job is handed here any more, and what waits here is taken elsewhere. */
  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await this.deps.store.leave(this.workerId).catch(() => undefined);
    await Promise.all([this.sharedQueue, ...this.handoverQueues.values()].map((queue) => queue.close()));
    this.handoverQueues.clear();
  }

  /**
   * The worker to hand the job to, `null` to run it here. The holder takes it when it has fewer copies
   * waiting than slots (it starts within about one job's time), or, while this worker has other jobs
   * to take from the shared queue (handing over leaves no slot idle), up to BUSY_HOLDER_SLOTS copies a
   * slot; past that, or when this worker would idle, it runs here.
   */
  private async choose(job: Job<GenerateTextJob>, holding: Promise<PrefixHolder | null>): Promise<string | null> {
    const id = jobIdOf(job);
    const holder = await holding;
    if (!holder) return this.decided("no_match", id);
    if (holder.workerId === this.workerId) return this.decided("preferred_here", id);
    const waiting = await this.handoverQueue(holder.workerId).getJobCountByTypes("wait", "prioritized");
    if (waiting < holder.slots) return holder.workerId;
    if (waiting < BUSY_HOLDER_SLOTS * holder.slots && (await this.sharedQueueHasWork())) return holder.workerId;
    return this.decided("preferred_busy", id);
  }

  /** Async, so a job whose conversation cannot be read rejects (choose's attempt logs it) rather than throws here. */
  private async holderOfConversation(job: Job<GenerateTextJob>): Promise<PrefixHolder | null> {
    return this.deps.store.holderOf(conversationPrefixes(job.data));
  }

  /** Whether other jobs wait in the shared queue for any worker (not counting those stepped aside). */
  private async sharedQueueHasWork(): Promise<boolean> {
    return (await this.sharedQueue.getJobCountByTypes("wait", "prioritized")) > 0;
  }

  /** Counts the decision; logs those that involve another worker or keep a job here for its cache. Null: runs here. */
  private decided(decision: RoutingDecision, jobId: string, moved?: Record<string, string>): null {
    this.deps.recordRouting?.(decision);
    if (decision in ROUTING_LOG)
      this.deps.logger.info(ROUTING_LOG[decision as keyof typeof ROUTING_LOG], { jobId, ...moved });
    return null;
  }

  /**
   * Copies the job to `target`'s hand-over queue: `handed`, `here` (nothing handed: run it here) or
   * `unsure`. When Redis fails a step, the copy may have been added or not; taking the claim back
   * (compare-and-set) settles which copy runs, and when that fails too the shared copy steps aside
   * and its claim settles it when it comes back (stolen, or watching the copy that claimed it).
   */
  private async handOver(job: Job<GenerateTextJob>, target: string): Promise<"handed" | "here" | "unsure"> {
    const id = jobIdOf(job);
    const marked = await this.attempt(() => this.deps.store.markHanded(id, target));
    if (marked === false) return "unsure"; // a claim already there: read when the shared copy comes back
    const added = marked && (await this.attempt(() => this.addCopy(target, job)));
    if (added) {
      this.decided("handed_over", id, { to: target });
      return "handed";
    }
    const takenBack = await this.attempt(() => this.deps.store.takeBack(id, target, this.workerId));
    if (!takenBack) return "unsure";
    void this.dropCopy(target, id);
    return "here";
  }

  /**
   * Adds the copy and names `target` among the workers with a hand-over queue (again): the sweep then
   * drops the copy with the queue should `target` have died just now. True once added.
   */
  protected async addCopy(target: string, job: Job<GenerateTextJob>): Promise<true> {
    await this.handoverQueue(target).add(job.name, job.data, this.copyOptions(job));
    await this.deps.store.register(target).catch(() => undefined);
    return true;
  }

  /** A copy that will not run (the shared copy runs the job) is removed now rather than left in Redis. */
  private async dropCopy(workerId: string, requestId: string): Promise<void> {
    await this.handoverQueue(workerId)
      .remove(requestId)
      .catch((error: unknown) => {
        this.deps.logger.warn("could not remove an unused hand-over copy", { jobId: requestId, error: String(error) });
      });
  }

  /**
   * The shared copy of a job another worker runs: done once the record is final; run here when that
   * worker's lease on it has lapsed and stays lapsed for a lease's life more (the worker died, or its
   * copy ended without a final record); else it looks again later. Redis errors are never counted:
   * the watcher only acts on what Redis answers.
   */
  private async watch(
    job: Job<GenerateTextJob>,
    token: string | undefined,
    signal: AbortSignal | undefined,
    run: TextProcessor,
    owner: string,
  ): Promise<GenerationResult | RoutedCopy | undefined> {
    const id = jobIdOf(job);
    const state = await this.attempt(async () => {
      if (await this.recordIsFinal(id)) return "final" as const;
      return (await this.deps.store.leaseHeld(id)) ? ("running" as const) : ("lapsed" as const);
    });
    if (state === "final") {
      await this.deps.store.forget(id).catch(() => undefined);
      return ROUTED_COPY;
    }
    if (state !== "lapsed" || !(await this.takesOver(id, owner)))
      return stepAside(job, token, this.options.watchIntervalMs, { logger: this.deps.logger, signal });
    this.decided("taken_over", id, { from: owner });
    return this.gate.run(() => run(job, token, signal), { first: true });
  }

  /** After a lapsed lease's grace, whether this worker took the job over from `owner` (compare-and-set). */
  private async takesOver(requestId: string, owner: string): Promise<boolean> {
    await new Promise((resolve) => setTimeout(resolve, this.options.leaseTtlMs));
    return (await this.attempt(() => this.deps.store.takeOver(requestId, owner, this.workerId))) === true;
  }

  private async recordIsFinal(requestId: string): Promise<boolean> {
    const status = await this.deps.connection.hget(this.deps.keys.status(requestId), "status");
    return status !== "processing";
  }

  /** What `step` gives, or null when Redis failed it (logged): the caller then takes the safe way. */
  private async attempt<T>(step: () => Promise<T>): Promise<T | null> {
    try {
      return await step();
    } catch (error) {
      this.deps.logger.warn("routing step failed; taking the safe way", { error: String(error) });
      return null;
    }
  }

  /** One attempt: a failure that a retry may mend goes back to the shared copy (copyFailed), retried anywhere. */
  private copyOptions(job: Job<GenerateTextJob>) {
    return {
      jobId: jobIdOf(job),
      attempts: 1,
      ...(job.opts.priority ? { priority: job.opts.priority } : {}),
    };
  }

  private handoverQueue(workerId: string): Queue<GenerateTextJob> {
    const known = this.handoverQueues.get(workerId);
    if (known) return known;
    const queue = createHandoverQueue(this.deps.connection, this.deps.keys, workerId);
    queue.on("error", (error: Error) => this.deps.logger.warn("hand-over queue error", { error: error.message }));
    this.handoverQueues.set(workerId, queue);
    return queue;
  }

  private async closeQueuesOfSilentWorkers(): Promise<void> {
    const known = [...this.handoverQueues.keys()];
    const alive = await this.deps.store.alive(known);
    const silent = known.filter((_, i) => !alive[i]);
    for (const workerId of silent) {
      const queue = this.handoverQueues.get(workerId);
      this.handoverQueues.delete(workerId);
      await queue?.close();
    }
  }

  private beat(): Promise<void> {
    return this.deps.store.beat(this.workerId, this.options.slots);
  }

  /**
   * A dead worker's hand-over queue holds only copies (their shared copies run them elsewhere), so it
   * is dropped whole, by one worker at a time. Every worker lets go of its handles on the queues of
   * workers that have gone silent (made again if one comes back), so they do not pile up as workers
   * come and go.
   */
  private async sweepDeadWorkers(): Promise<void> {
    await this.closeQueuesOfSilentWorkers().catch((error: unknown) => {
      this.deps.logger.warn("could not check which workers live; their queue handles wait", { error: String(error) });
    });
    if (!(await this.deps.store.takeSweepTurn(SWEEP_INTERVAL_MS))) return;
    for (const workerId of await this.deps.store.deadWorkers()) {
      if (workerId === this.workerId) continue;
      const queue = this.handoverQueue(workerId);
      await queue.obliterate({ force: true });
      await queue.close();
      this.handoverQueues.delete(workerId);
      await this.deps.store.dropWorker(workerId);
      this.deps.logger.info("dropped a dead worker's hand-over queue", { workerId });
    }
  }
}

const SWEEP_INTERVAL_MS = 30_000;
/** While the shared queue has other work, a busy holder may have this many copies waiting per slot. */
const BUSY_HOLDER_SLOTS = 4;

/** What the worker logs of routing (info), word for word: operators and tests look for these. */
export const ROUTING_LOG = {
  handed_over: "handed over to the worker that holds its conversation",
  stolen: "taken: its preferred worker had not started it in time",
  taken_over: "taken over: the worker running it stopped",
  preferred_here: "kept: this worker holds its conversation",
} as const;
