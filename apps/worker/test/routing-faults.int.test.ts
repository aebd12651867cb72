import { handoverQueueName, type GenerateTextJob } from "@chorus/contracts";
import { createTextQueue } from "@chorus/platform/queues";
import { createWorkerRedis, redisKeys, type RedisClient, type RedisKeys } from "@chorus/platform/redis";
import { jest } from "@jest/globals";
import type { Job, Queue } from "bullmq";
import request from "supertest";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { testLogger } from "../../../test-support/logger.js";
import { finalRecord } from "../../../test-support/records.js";
import {
  startFaultyRedis,
  type FaultName,
  type FaultyRedis,
  type RedisFault,
} from "../../../test-support/redis-faults.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { submittedId } from "../../../test-support/response-body.js";
import { waitFor } from "../../../test-support/wait-for.js";
import { startTestWorker, type TestWorker } from "../../../test-support/worker.js";
import type { ChatTurn, GenerationInput, GenerationResult, LlmEngine } from "../src/engines/llm/llm-engine.js";
import { CacheRouting, type CacheRoutingDeps, type CacheRoutingOptions } from "../src/routing/cache-routing.js";
import { RoutingStore } from "../src/routing/routing-store.js";

/** This file's private redis-server (and its replica on the next port, for READONLY). */
const REDIS_PORT = 7231;

/**
 * A test double of a text engine that counts its calls (the prompt's last turn names the job) and,
 * while held, does not answer: a routed job keeps generating on its worker as long as a test needs.
 */
class CountingEngine implements LlmEngine {
  readonly name = "counting engine (test double)";
  readonly contextTokens = 4096;
  readonly prompts: string[] = [];
  private held: Promise<void> = Promise.resolve();
  private releaseHeld: () => void = () => undefined;

  countPromptTokens(turns: ChatTurn[]): Promise<number> {
    return Promise.resolve(turns.reduce((sum, turn) => sum + turn.content.length, 0));
  }

  async generate(input: GenerationInput): Promise<GenerationResult> {
    this.prompts.push(input.turns.at(-1)?.content ?? "");
    await this.held;
    return { text: "The end.", finishReason: "stop", tokens: 3, promptTokens: 10, cachedTokens: 0 };
  }

  hold(): void {
    this.held = new Promise((resolve) => (this.releaseHeld = resolve));
  }

  release(): void {
    this.releaseHeld();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Routing that loses the reply of a hand-over it made: the copy is in Redis, the sender cannot know. */
class LostReplyRouting extends CacheRouting {
  constructor(
    deps: CacheRoutingDeps,
    options: CacheRoutingOptions,
    private readonly onAdded: () => Promise<void>,
  ) {
    super(deps, options);
  }

  protected override async addCopy(target: string, job: Job<GenerateTextJob>): Promise<true> {
    await super.addCopy(target, job);
    await this.onAdded();
    throw new Error("Connection is closed (test double: the hand-over's reply was lost)");
  }
}

interface RoutedWorker {
  id: string;
  engine: CountingEngine;
  store: RoutingStore;
  routing: CacheRouting;
  worker: TestWorker;
  /** Warnings the routing logged, by message. */
  warned: (message: string) => number;
  /** Lease renewals that Redis took, so far. */
  renewals: () => number;
  close(): Promise<void>;
}

const ROUTING_OPTIONS = { slots: 1, maxWaitMs: 1000, watchIntervalMs: 1000, heartbeatMs: 1000, leaseTtlMs: 3000 };
const STORE_OPTIONS = { prefixTtlMs: 600_000, heartbeatTtlMs: 3000, claimTtlMs: 600_000, leaseTtlMs: 3000 };

describe("routing through Redis faults (private redis-server, counting engine test double)", () => {
  let redis: FaultyRedis;
  let prefix: string;
  let keys: RedisKeys;
  let gw: TestGateway;
  let key: string;
  let connection: RedisClient;
  let textQueue: Queue<GenerateTextJob>;
  const started: RoutedWorker[] = [];
  let lift: (() => Promise<void>) | null = null;

  beforeAll(async () => {
    redis = await startFaultyRedis(REDIS_PORT);
  });
  afterAll(async () => redis.stop());

  beforeEach(async () => {
    prefix = uniquePrefix("routing-faults");
    keys = redisKeys(prefix);
    gw = await startTestGateway(prefix, {}, redis.url);
    key = await gw.createKey({ limits: { text: 100_000, status: 1_000_000 } });
    connection = createWorkerRedis(redis.url);
    textQueue = createTextQueue(connection, keys);
  });

  afterEach(async () => {
    await lift?.();
    lift = null;
    await Promise.all(started.splice(0).map((w) => w.close()));
    await textQueue.close();
    connection.disconnect();
    await gw.close({ keepKeys: true });
  }, 60_000);

  /** A worker with routing on, as main.ts builds it, but with a routing this test may replace. */
  async function startRouted(
    id: string,
    makeRouting: (deps: CacheRoutingDeps, options: CacheRoutingOptions) => CacheRouting = (d, o) =>
      new CacheRouting(d, o),
  ): Promise<RoutedWorker> {
    const routingRedis = createWorkerRedis(redis.url);
    routingRedis.on("error", () => undefined);
    const logger = testLogger("worker");
    const warn = jest.spyOn(logger, "warn");
    const store = new RoutingStore(routingRedis, keys, STORE_OPTIONS);
    let renewals = 0;
    const renewLease = store.renewLease.bind(store);
    store.renewLease = async (requestId, workerId) => {
      const ours = await renewLease(requestId, workerId);
      renewals++;
      return ours;
    };
    const routing = makeRouting(
      { connection: routingRedis, keys, store, logger },
      { ...ROUTING_OPTIONS, workerId: id },
    );
    await routing.start();
    const engine = new CountingEngine();
    // JOB_LOCK_MS 30 s: longer than any fault here (an outage longer than the lock stalls a running job).
    const worker = await startTestWorker(prefix, engine, { routing, concurrency: 1 }, redis.url);
    const routed: RoutedWorker = {
      id,
      engine,
      store,
      routing,
      worker,
      renewals: () => renewals,
      warned: (message) => warn.mock.calls.filter((call) => (call[0] as unknown) === message).length,
      close: async () => {
        await worker.close();
        await routing.stop();
        routingRedis.disconnect();
      },
    };
    started.push(routed);
    return routed;
  }

  /** The shared queue's Worker of a test worker (createWorkers: the text Worker first, then the hand-over one). */
  const sharedWorkerOf = (w: RoutedWorker) => w.worker.workers[0]!;

  async function submit(messages: object[]): Promise<string> {
    const body = { messages, samplingParams: { max_tokens: 8 } };
    return submittedId(await request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).send(body));
  }

  /**
   * Two workers where b holds a chat (it answered its first turn) and takes no job from the shared
   * queue, so a hands b the chat's next turn, asking `question`, when it is submitted.
   */
  async function chatHeldByB(question: string, makeA?: Parameters<typeof startRouted>[1]) {
    const b = await startRouted("b");
    const opening = { role: "You", content: "Tell me a story.", index: 0 };
    const first = await finalRecord(gw.app, key, await submit([opening]));
    expect(first.status).toBe("completed");
    await sharedWorkerOf(b).close();
    const a = await startRouted("a", makeA);
    const next = [
      opening,
      { role: "Bot", content: first.reply, index: 1 },
      { role: "You", content: question, index: 2 },
    ];
    return { a, b, submitNext: () => submit(next) };
  }

  /** Calls of the workers' engines for the job (its prompt ends in its own question). */
  const engineCalls = (label: string, workers: RoutedWorker[]) =>
    workers.flatMap((w) => w.engine.prompts).filter((prompt) => prompt.includes(label)).length;

  /** Whether the job's copy is still in `worker`'s hand-over queue. */
  const copyStays = async (worker: RoutedWorker, id: string) =>
    (await connection.exists(keys.bullJob(handoverQueueName(worker.id), id))) === 1;

  /** The job completed, ran once, on its first attempt: no attempt failed, no stall, and the record says completed. */
  async function expectRanOnceFirstAttempt(id: string, label: string, workers: RoutedWorker[]): Promise<void> {
    const record = await finalRecord(gw.app, key, id);
    expect([record.status, record.error]).toEqual(["completed", undefined]);
    const shared = await waitFor("the shared copy's end", async () => {
      const job = await textQueue.getJob(id);
      // Read again once completed: the first read may predate the completion (and its attempt count).
      return job && (await job.isCompleted()) ? textQueue.getJob(id) : undefined;
    });
    expect({ attemptsMade: shared.attemptsMade, stalled: shared.stalledCounter, failed: shared.failedReason }).toEqual({
      attemptsMade: 1,
      stalled: 0,
      failed: undefined,
    });
    expect(engineCalls(label, workers)).toBe(1);
  }

  /**
   * Keeps Redis in `fault` (injected already) until `seen` holds; a pause (no errors to see) ends by
   * itself, which a write held back until then tells.
   */
  async function until(fault: RedisFault, seen: () => boolean | Promise<boolean>): Promise<void> {
    lift = () => fault.lift();
    if (fault.errors) await waitFor(`${fault.name} met by the routing`, seen, { timeoutMs: 60_000 });
    else await waitFor("the pause over", () => connection.publish("routing-faults:probe", "").then(() => true));
    await fault.lift();
    lift = null;
  }

  const STEP_ASIDE_FAILED = "stepping aside failed; trying again";

  it.each<FaultName>(["READONLY", "OOM", "CLIENT PAUSE"])(
    "when Redis fails (%s) while a routed job's shared copy watches it run elsewhere, then the job completes once, on its first attempt, and is never marked error",
    async (faultName) => {
      const label = `What happened next (watched through ${faultName})?`;
      const { a, b, submitNext } = await chatHeldByB(label);
      b.engine.hold();
      // The fault starts once the watcher has seen the copy's lease held, before it steps aside.
      const fault = redis.fault(faultName);
      let faulted = false;
      const leaseHeld = a.store.leaseHeld.bind(a.store);
      a.store.leaseHeld = async (requestId) => {
        const held = await leaseHeld(requestId);
        if (held && !faulted) await fault.inject().then(() => (faulted = true));
        return held;
      };
      const id = await submitNext();
      await waitFor("the job generating on b, watched from a, and the fault in", () => faulted);
      expect(engineCalls(label, [b])).toBe(1);
      // READONLY: more failed step-asides in a row than the six tries that once failed the attempt. OOM
      // (which refuses to fetch jobs, not to delay them): b's lease kept past its life by renewals alone.
      const renewed = b.renewals();
      await until(fault, () => (faultName === "OOM" ? b.renewals() >= renewed + 4 : a.warned(STEP_ASIDE_FAILED) >= 8));
      b.engine.release();

      await expectRanOnceFirstAttempt(id, label, [a, b]);
      expect(engineCalls(label, [b])).toBe(1);
    },
    120_000,
  );

  it.each<FaultName>(["READONLY", "OOM", "CLIENT PAUSE"])(
    "when a hand-over's reply is lost and Redis then fails (%s), so the sender cannot take the job back, then one copy runs it, once, on the job's first attempt",
    async (faultName) => {
      const fault = redis.fault(faultName);
      let faulted = false;
      const label = `What happened next (hand-over reply lost, then ${faultName})?`;
      const { a, b, submitNext } = await chatHeldByB(label, (deps, options) => {
        return new LostReplyRouting(deps, options, async () => {
          await fault.inject();
          faulted = true;
        });
      });
      const id = await submitNext();
      await waitFor("the hand-over made and its reply lost", () => faulted);
      // a stepped aside unsure of its copy: through failures (READONLY), or at once (OOM refuses no move to delayed).
      const steppedAside = async () =>
        a.warned(STEP_ASIDE_FAILED) >= 3 || ((await textQueue.getJob(id))?.delay ?? 0) > 0;
      await until(fault, steppedAside);

      await expectRanOnceFirstAttempt(id, label, [a, b]);
      // No copy stays in b's hand-over queue: one whose end Redis refused comes back when its lock
      // lapses (JOB_LOCK_MS) and is skipped, its record being final.
      await waitFor("b's hand-over queue without the copy", async () => !(await copyStays(b, id)), {
        timeoutMs: 90_000,
      });
    },
    180_000,
  );
});
