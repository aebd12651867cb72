import type { StatusRecord } from "@chorus/contracts";
import { createTextQueue } from "@chorus/platform/queues";
import { measuredTurnCost } from "@chorus/platform/scheduler";
import request from "supertest";
import { describeWithModel } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { submittedId } from "../../../test-support/response-body.js";
import { startStartOrderWorker, type StartOrderWorker } from "../../../test-support/start-order.js";
import { loadFixtureEngine } from "../../../test-support/worker.js";
import { finalRecord } from "../../../test-support/records.js";

/**
 * Fair turns weighted by work: a key's turn accounts for what its requests cost (their text's tokens,
 * estimated, plus max_tokens; corrected by the measured tokens once done), so many large requests of
 * one key do not crowd out many small ones of another. The real worker on the fixture model; its
 * StatusStore notes the order in which jobs really start.
 */
let gw: TestGateway;
let engine: Awaited<ReturnType<typeof loadFixtureEngine>> | undefined;
const workers: StartOrderWorker[] = [];

beforeEach(async () => {
  gw = await startTestGateway(uniquePrefix("weighted-turns"));
});
afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.close();
  await gw.close();
});
afterAll(async () => {
  await engine?.close();
});

/** A full context on the fixture model (1,024 tokens): 600 characters, and the most a reply may be. */
const large = () => ({
  messages: [{ role: "You", content: "Tell me a long story about a brave cat. ".repeat(15), index: 0 }],
  samplingParams: { max_tokens: 2048 },
});
const small = () => ({ messages: [{ role: "You", content: "Hi!", index: 0 }], samplingParams: { max_tokens: 8 } });

const submit = async (key: string, body: object): Promise<string> => {
  const res = await request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).send(body);
  expect(res.status).toBe(200);
  return submittedId(res);
};

/** The real worker with one slot; `started` fills with the ids in the order their jobs start. */
async function startWorker(): Promise<string[]> {
  engine ??= await loadFixtureEngine(2);
  const worker = await startStartOrderWorker(gw.prefix, gw.deps.keys, engine, 1);
  workers.push(worker);
  return worker.started;
}

/** Each job's turn (its BullMQ priority) and the cost in turns admission charged its key. */
async function jobTurns(ids: string[]): Promise<Map<string, { turn: number; cost: number }>> {
  const queue = createTextQueue(gw.deps.queueRedis, gw.deps.keys);
  try {
    const jobs = await Promise.all(ids.map(async (id) => [id, (await queue.getJob(id))!] as const));
    return new Map(jobs.map(([id, job]) => [id, { turn: job.opts.priority!, cost: job.data.turnCost! }]));
  } finally {
    await queue.close();
  }
}

const untilFinal = async (key: string, ids: string[]): Promise<StatusRecord[]> => {
  const records: StatusRecord[] = [];
  for (const id of ids) records.push(await finalRecord(gw.app, key, id));
  return records;
};

describeWithModel("fair turns weighted by work, with the real worker", () => {
  it("when one key has large requests waiting and another then many small ones, then the small ones share the worker by cost, not by count", async () => {
    const [heavy, light] = [await gw.createKey(), await gw.createKey()];
    const heavyIds = [];
    for (let i = 0; i < 3; i++) heavyIds.push(await submit(heavy, large()));
    const lightIds = [];
    for (let i = 0; i < 40; i++) lightIds.push(await submit(light, small()));
    const turns = await jobTurns([...heavyIds, ...lightIds]);
    const [largeCost, smallCost] = [turns.get(heavyIds[0]!)!.cost, turns.get(lightIds[0]!)!.cost];
    expect(smallCost).toBe(1);
    expect(largeCost).toBeGreaterThanOrEqual(30);
    // A key's turns step by its requests' costs: the heavy key's second request waits a large one's cost.
    expect(heavyIds.map((id) => turns.get(id)!.turn)).toEqual([1, 1 + largeCost, 1 + 2 * largeCost]);

    const started = await startWorker();
    const records = await untilFinal(light, lightIds);
    records.push(...(await untilFinal(heavy, heavyIds)));
    expect(records.filter((record) => record.status !== "completed")).toEqual([]);
    // Each started once, first attempt, in the order of the turns (ties: arrival).
    const byTurn = [...turns.keys()].sort((a, b) => turns.get(a)!.turn - turns.get(b)!.turn);
    expect(started).toEqual(byTurn);
    // While both keys had requests waiting, the work each had started stayed within one large request of the
    // other's (start-time fair queueing's bound): by count, the heavy key would have had all three started by the
    // sixth start.
    const heavySet = new Set(heavyIds);
    let [heavyWork, lightWork, heavyLeft, lightLeft] = [0, 0, heavyIds.length, lightIds.length];
    for (const id of started) {
      if (heavyLeft === 0 || lightLeft === 0) break;
      if (heavySet.has(id)) [heavyWork, heavyLeft] = [heavyWork + largeCost, heavyLeft - 1];
      else [lightWork, lightLeft] = [lightWork + smallCost, lightLeft - 1];
      expect(Math.abs(heavyWork - lightWork)).toBeLessThanOrEqual(largeCost + smallCost);
    }
    expect(started.indexOf(heavyIds[1]!)).toBeGreaterThanOrEqual(largeCost);
  }, 240_000);

  it("when a large request ends having cost less than admission charged, then its key's next turn follows from what it cost", async () => {
    const [heavy, light] = [await gw.createKey(), await gw.createKey()];
    const started = await startWorker();
    const first = await submit(heavy, large());
    const [record] = await untilFinal(heavy, [first]);
    const measured = measuredTurnCost({
      promptTokens: record!.promptTokens!,
      cachedTokens: record!.cachedTokens ?? 0,
      tokens: record!.tokens!,
    });
    const charged = (await jobTurns([first])).get(first)!.cost;
    expect(measured).toBeLessThan(charged); // the fixture's context holds far less than max_tokens 2048
    const next = await submit(heavy, large());
    const quiet = await submit(light, small());
    const turns = await jobTurns([next, quiet]);
    // One after the first request's turn (1) plus what it cost, not plus what was charged; a quiet key's
    // request takes one after the turn being served (the first's, or the next's if the idle worker took it).
    expect(turns.get(next)!.turn).toBe(Math.max(2, 1 + measured));
    expect([2, turns.get(next)!.turn + 1]).toContain(turns.get(quiet)!.turn);
    await untilFinal(heavy, [next]);
    await untilFinal(light, [quiet]);
    expect([...started].sort()).toEqual([first, next, quiet].sort()); // each started once
  }, 240_000);
});
