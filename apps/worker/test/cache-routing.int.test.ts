import { CANCELLED_ERROR, type StatusRecord } from "@chorus/contracts";
import { createTextQueue } from "@chorus/platform/queues";
import { createWorkerRedis, redisKeys } from "@chorus/platform/redis";
import type { RunningChild } from "@chorus/local-runtime";
import request from "supertest";
import { describeWithModel } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { startApp, waitForOutput } from "../../../test-support/processes.js";
import { createBatchOverHttp } from "../../../test-support/batches.js";
import { finalRecord } from "../../../test-support/records.js";
import { TEST_REDIS, TEST_REDIS_URL, uniquePrefix } from "../../../test-support/redis.js";
import { submittedId } from "../../../test-support/response-body.js";
import { waitFor } from "../../../test-support/wait-for.js";
import { ROUTING_LOG } from "../src/routing/cache-routing.js";

/**
 * Cache-aware routing between real worker processes, each with one llama.cpp slot, on
 * real Redis: a conversation's next turn runs where its last one did, read from that engine's cache.
 */

interface Message {
  role: "You" | "Bot";
  content: string;
  index: number;
}

/** Each chat opens with its own question (a shared opening is a shared prefix: routed to one worker), then these. */
const QUESTIONS = ["What did the cat do next?", "Where did they go?", "Why was she sad?"];

class Chat {
  readonly messages: Message[] = [];
  /** Per turn: its request id. */
  readonly turns: string[] = [];
  /** `opening`: the chat's first question. */
  constructor(readonly opening: string) {}

  body(question: string, maxTokens: number) {
    const messages = [...this.messages, { role: "You" as const, content: question, index: this.messages.length }];
    return { messages, samplingParams: { max_tokens: maxTokens, temperature: 0.8 } };
  }

  answered(question: string, reply: string): void {
    this.messages.push({ role: "You", content: question, index: this.messages.length });
    this.messages.push({ role: "Bot", content: reply, index: this.messages.length });
  }
}

describeWithModel("cache-aware routing between worker processes (stories260K, one slot each)", () => {
  let gw: TestGateway;
  let key: string;
  let prefix: string;
  const running: RunningChild[] = [];

  afterEach(async () => {
    await Promise.all(running.splice(0).map((w) => w.kill("SIGKILL")));
    await gw?.close();
  }, 60_000);

  async function startWorker(env: Record<string, string>): Promise<RunningChild> {
    const worker = startApp("worker", {
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
      WORKER_CONCURRENCY: "1",
      TTS_ENGINE: "none",
      ...env,
    });
    running.push(worker);
    await waitForOutput(worker, /worker ready/, 60_000);
    return worker;
  }

  async function start(label: string): Promise<void> {
    prefix = uniquePrefix(label);
    gw = await startTestGateway(prefix);
    key = await gw.createKey({ limits: { text: 100_000, status: 1_000_000 } });
  }

  async function submit(body: object): Promise<string> {
    return submittedId(await request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).send(body));
  }

  /** One turn of a chat, to its final record; the chat keeps the reply. */
  async function turn(chat: Chat, question: string, maxTokens = 24): Promise<StatusRecord> {
    const id = await submit(chat.body(question, maxTokens));
    chat.turns.push(id);
    const record = await finalRecord(gw.app, key, id, 180_000);
    expect(record.status).toBe("completed");
    chat.answered(question, record.reply ?? "");
    return record;
  }

  /**
   * The worker whose log says it completed the job (its line may come just after the record turns
   * final); a job completed twice would fail here.
   */
  async function ranOn(id: string): Promise<RunningChild> {
    const where = () => running.filter((w) => completedIds(w).includes(id));
    await waitFor(`the log of ${id}'s completion`, () => where().length > 0, { intervalMs: 5 });
    expect([id, where().length]).toEqual([id, 1]);
    return where()[0]!;
  }

  it("when chats take turns on two workers, one of which joined later, then each next turn runs where the chat's last one ran, mostly from its cache", async () => {
    await start("routing");
    const first = await startWorker({ ROUTE_MAX_WAIT_MS: "30000" });
    const chats = [
      new Chat("Tell me about the sun."),
      new Chat("Tell me about a dog."),
      new Chat("Tell me about the sea."),
    ];
    await turn(chats[0]!, chats[0]!.opening);
    // A worker joins with no configuration; the next two chats start at once, one on each worker.
    const second = await startWorker({ ROUTE_MAX_WAIT_MS: "30000" });
    await Promise.all([turn(chats[1]!, chats[1]!.opening), turn(chats[2]!, chats[2]!.opening)]);
    const later: StatusRecord[] = [];
    for (const question of QUESTIONS) for (const chat of chats) later.push(await turn(chat, question));

    const homes: RunningChild[] = [];
    for (const chat of chats) {
      const workers = await Promise.all(chat.turns.map(ranOn));
      expect(workers.map((w) => w === workers[0])).toEqual(workers.map(() => true));
      homes.push(workers[0]!);
    }
    expect(homes.filter((w) => w === second).length).toBeGreaterThan(0);
    for (const record of later) expect(record.cachedTokens).toBeGreaterThanOrEqual(0.5 * record.promptTokens!);
    // Some turn was taken from the shared queue by the other worker and handed to its chat's worker.
    const handovers = [first, second].flatMap((w) => logLines(w, ROUTING_LOG.handed_over));
    expect(handovers.length).toBeGreaterThan(0);
  }, 600_000);

  /**
   * Two workers; a chat's first turn, then two branches of its next turn: a long one that keeps the
   * chat's worker busy, and one that waits for that worker: handed to it by the other worker, or
   * taken by it directly to wait for its slot (whichever worker's BullMQ fetch wins).
   */
  async function busyWorkerWithOneWaiting(label: string) {
    await start(label);
    const env = { ROUTE_MAX_WAIT_MS: "2000", JOB_LOCK_MS: "5000" };
    const [a, b] = [await startWorker(env), await startWorker(env)];
    const chat = new Chat("Tell me about a bird.");
    await turn(chat, chat.opening);
    const home = await ranOn(chat.turns[0]!);
    const other = home === a ? b : a;
    const long = await submit({
      ...chat.body(QUESTIONS[0]!, 1500),
      samplingParams: { max_tokens: 1500, temperature: 1.2 },
    });
    await waitFor("the long branch generating on its chat's worker", () => generating(home, long), { intervalMs: 5 });
    const waiting = await submit(chat.body(QUESTIONS[1]!, 24));
    const said = (worker: RunningChild, message: string) =>
      logLines(worker, message).some((line) => line.includes(waiting));
    const handed = () => said(other, ROUTING_LOG.handed_over);
    const waitsForIt = () => handed() || said(home, ROUTING_LOG.preferred_here);
    await waitFor("the second branch waiting for the busy worker", waitsForIt, { intervalMs: 5 });
    return { home, other, long, waiting, handed: handed() };
  }

  it("when the preferred worker dies running one routed job with another waiting for it, then the other worker runs both, once each", async () => {
    const { home, other: survivor, long, waiting, handed } = await busyWorkerWithOneWaiting("routing-death");
    home.process.kill("SIGKILL");
    await home.exited;

    const finals = [await finalRecord(gw.app, key, long, 180_000), await finalRecord(gw.app, key, waiting, 180_000)];
    expect(finals.map((r) => r.status)).toEqual(["completed", "completed"]);
    await Promise.all([ranOn(long), ranOn(waiting)]);
    expect(
      completedIds(survivor)
        .filter((id) => id === long || id === waiting)
        .sort(),
    ).toEqual([long, waiting].sort());
    // A branch handed to the dead worker was taken from it (not started in time, or taken over); one it
    // had taken itself came back to the queue when its BullMQ lock lapsed, as any job of a dead worker.
    const taken = [...logLines(survivor, ROUTING_LOG.stolen), ...logLines(survivor, ROUTING_LOG.taken_over)];
    expect(taken.filter((line) => line.includes(waiting))).toHaveLength(handed ? 1 : 0);
  }, 600_000);

  it("when the worker a job was handed to is killed (kill -9) while generating it, then the job's shared copy takes it over once its lease lapses: completed once, on its first attempt", async () => {
    await start("routing-kill");
    const env = { ROUTE_MAX_WAIT_MS: "15000" };
    const workers = [await startWorker(env), await startWorker(env)];
    const chat = new Chat("Tell me about a cow.");
    await turn(chat, chat.opening);
    const home = await ranOn(chat.turns[0]!);
    const other = workers.find((w) => w !== home)!;
    // Home is kept busy (its one slot and its one fetch) by a long job of another chat, so the other
    // worker takes the chat's next turn and hands it to home.
    const cancel = async (id: string) =>
      expect((await request(gw.app).delete(`/api/v2/status/${id}`).auth(key, { type: "bearer" })).status).toBe(200);
    const long = (opening: string) => submit(new Chat(opening).body(opening, 1500));
    const first = await long("Tell me about a hen.");
    await waitFor("the long job generating", () => generating(home, first) || generating(other, first), {
      intervalMs: 5,
    });
    const homeBusy = generating(home, first) ? first : await long("Tell me about a pig.");
    await waitFor("home busy", () => generating(home, homeBusy), { intervalMs: 5 });
    const next = await submit({
      ...chat.body(QUESTIONS[0]!, 1500),
      samplingParams: { max_tokens: 1500, temperature: 1.2 },
    });
    if (homeBusy !== first) await cancel(first);
    const handed = () => logLines(other, ROUTING_LOG.handed_over).some((line) => line.includes(next));
    await waitFor("the next turn handed to home", handed, { intervalMs: 5 });
    await cancel(homeBusy);
    await waitFor("the handed-over copy generating on home", () => generating(home, next), { intervalMs: 5 });
    home.process.kill("SIGKILL");
    await home.exited;
    expect(generating(other, next)).toBe(false);

    expect((await finalRecord(gw.app, key, next, 180_000)).status).toBe("completed");
    expect(await ranOn(next)).toBe(other);
    expect(logLines(other, ROUTING_LOG.taken_over).filter((line) => line.includes(next))).toHaveLength(1);
    expect([home, other].map((w) => logLines(w, "generation started").filter((l) => l.includes(next)).length)).toEqual([
      1, 1,
    ]);
    const connection = createWorkerRedis(TEST_REDIS);
    const queue = createTextQueue(connection, redisKeys(prefix));
    const shared = await waitFor("the shared copy's end", async () => {
      const job = await queue.getJob(next);
      // Read again once completed: the first read may predate the completion (and its attempt count).
      return job && (await job.isCompleted()) ? queue.getJob(next) : undefined;
    });
    expect([shared.attemptsMade, shared.stalledCounter, shared.failedReason]).toEqual([1, 0, undefined]);
    await queue.close();
    connection.disconnect();
  }, 600_000);

  it("when routed jobs are cancelled, running on their preferred worker or waiting for it, then both end cancelled and the waiting one never starts", async () => {
    const { home, other, long, waiting } = await busyWorkerWithOneWaiting("routing-cancel");
    const cancel = (id: string) => request(gw.app).delete(`/api/v2/status/${id}`).auth(key, { type: "bearer" });
    expect((await cancel(waiting)).status).toBe(200);
    expect((await cancel(long)).status).toBe(200);
    const finals = [await finalRecord(gw.app, key, long), await finalRecord(gw.app, key, waiting)];
    expect(finals.map((r) => [r.status, r.error])).toEqual([
      ["error", CANCELLED_ERROR],
      ["error", CANCELLED_ERROR],
    ]);
    // Both workers have gone on: a new chat's turn completes, and the cancelled branch never started.
    expect((await turn(new Chat("Tell me about a fox."), "Tell me about a fox.")).status).toBe("completed");
    expect([generating(home, waiting), generating(other, waiting)]).toEqual([false, false]);
    expect([...completedIds(home), ...completedIds(other)]).not.toContain(long);
  }, 600_000);

  it("when a batch's lines run on a routing worker, then none is claimed or named as a conversation's holder (no next turn follows a line); a chat's turn is", async () => {
    await start("routing-batch");
    await startWorker({});
    const redis = createWorkerRedis(TEST_REDIS);
    const routingKeys = async () => redis.keys(`${prefix}:routing:{routing}:*`);
    const lines = [0, 1, 2].map((i) =>
      JSON.stringify({
        custom_id: `line-${i}`,
        method: "POST",
        url: "/v1/chat/completions",
        body: { model: "default", messages: [{ role: "user", content: `Tell me about boat ${i}.` }], max_tokens: 8 },
      }),
    );
    const created = await createBatchOverHttp(gw.app, key, lines);
    const batchId = (created.body as { id: string }).id;
    const batch = await waitFor(
      `batch ${batchId} completed`,
      async () => {
        const polled = await request(gw.app).get(`/v1/batches/${batchId}`).auth(key, { type: "bearer" });
        const body = polled.body as { status: string; request_counts: { completed: number } };
        return body.status === "completed" ? body : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 100 },
    );
    expect(batch.request_counts.completed).toBe(3);
    const prefixKeys = (keys: string[]) => keys.filter((k) => k.includes(":prefix:") || k.includes(":claim:"));
    expect(prefixKeys(await routingKeys())).toEqual([]);
    // The same worker names itself the holder of a chat's conversation once it answers a turn (published just
    // after the record is written, so the client may see the answer first).
    await turn(new Chat("Tell me about a boat."), "Tell me about a boat.");
    const named = await waitFor("the chat's conversation named held", async () => {
      const keys = prefixKeys(await routingKeys());
      return keys.length > 0 ? keys : undefined;
    });
    expect(named.length).toBeGreaterThan(0);
    redis.disconnect();
  }, 300_000);
});

function logLines(worker: RunningChild, message: string): string[] {
  return worker
    .output()
    .split("\n")
    .filter((line) => line.includes(message));
}

function completedIds(worker: RunningChild): string[] {
  return logLines(worker, "generation completed").map((line) => (JSON.parse(line) as { jobId: string }).jobId);
}

function generating(worker: RunningChild, id: string): boolean {
  return logLines(worker, "generation started").some((line) => line.includes(id));
}
