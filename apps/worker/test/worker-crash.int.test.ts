import { QUEUES, type StatusRecord } from "@chorus/contracts";
import { createWorkerRedis, type RedisClient, type RedisKeys } from "@chorus/platform/redis";
import request from "supertest";
import { defaultRequest, describeWithModel } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import type { RunningChild } from "@chorus/local-runtime";
import { startApp, waitForOutput } from "../../../test-support/processes.js";
import { TEST_REDIS, TEST_REDIS_URL, uniquePrefix } from "../../../test-support/redis.js";
import { finalRecord } from "../../../test-support/records.js";
import { submittedId } from "../../../test-support/response-body.js";

/**
 * A job's counters in BullMQ's hash: attempts started, attempts ended (completed or failed: a retry
 * makes two), times found stalled, and the failure an attempt left.
 */
async function attempts(connection: RedisClient, keys: RedisKeys, id: string) {
  const fields = ["ats", "atm", "stc", "failedReason"];
  const [started, ended, stalled, failedReason] = await connection.hmget(keys.bullJob(QUEUES.text, id), ...fields);
  return { id, started: Number(started), ended: Number(ended), stalled: Number(stalled ?? 0), failedReason };
}

/** The job ids of a process's JSON log lines with this message. */
const loggedJobIds = (child: RunningChild, message: string) =>
  child
    .output()
    .split("\n")
    .filter((l) => l.includes(message))
    .map((l) => (JSON.parse(l) as { jobId: string }).jobId);

describeWithModel("a worker killed mid-generation (real worker processes)", () => {
  let gw: TestGateway;
  let connection: RedisClient;
  const workers: RunningChild[] = [];
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.kill("SIGKILL")));
    connection?.disconnect();
    await gw.close();
  }, 60_000);

  it("when kill -9 hits a worker, then a live worker runs its jobs again after their locks lapse, each job once, none through a retry", async () => {
    const prefix = uniquePrefix("crash");
    gw = await startTestGateway(prefix);
    connection = createWorkerRedis(TEST_REDIS);
    const key = await gw.createKey({ limits: { status: 1_000_000 } });
    // The default JOB_LOCK_MS and take-over timing, as deployed; the rescuer runs before the crash.
    const env = { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix, WORKER_CONCURRENCY: "2" };
    const rescuer = startApp("worker", env);
    const victim = startApp("worker", env);
    workers.push(rescuer, victim);
    await Promise.all([waitForOutput(rescuer, /worker ready/), waitForOutput(victim, /worker ready/)]);

    const body = { ...defaultRequest(), samplingParams: { max_tokens: 300, temperature: 1.2 } };
    const ids: string[] = [];
    for (let i = 0; i < 4; i++)
      ids.push(submittedId(await request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).send(body)));

    // Kill the victim as soon as it generates.
    await waitForOutput(victim, /generation started/);
    victim.process.kill("SIGKILL");
    await victim.exited;
    const [killedWhileRunning] = loggedJobIds(victim, "generation started");

    const finals: StatusRecord[] = [];
    // A hang guard for loaded machines, not a timing.
    for (const id of ids) finals.push(await finalRecord(gw.app, key, id, 240_000));
    if (finals.some((r) => r.status !== "completed")) process.stderr.write(rescuer.output().slice(-3000));
    expect(finals.map((r) => r.status)).toEqual(["completed", "completed", "completed", "completed"]);
    for (const r of finals) expect(r.tokens).toBeGreaterThan(0);
    // The killed worker's jobs were found stalled once and started once more, on the rescuer; no job
    // failed an attempt (a retry would hide the crash) and no other job started twice.
    const counters = await Promise.all(ids.map((id) => attempts(connection, gw.deps.keys, id)));
    const held = counters.filter((c) => c.stalled > 0).map((c) => c.id);
    expect(held).toContain(killedWhileRunning);
    const stalledOnce = (id: string) => (held.includes(id) ? 1 : 0);
    expect(counters).toEqual(
      ids.map((id) => ({ id, started: 1 + stalledOnce(id), ended: 1, stalled: stalledOnce(id), failedReason: null })),
    );
    // Each job's engine ran once on the rescuer, and each reply was stored once.
    const started = loggedJobIds(rescuer, "generation started");
    expect(started.filter((id) => held.includes(id)).sort()).toEqual([...held].sort());
    expect(new Set(started).size).toBe(started.length);
    const completions = [
      ...loggedJobIds(victim, "generation completed"),
      ...loggedJobIds(rescuer, "generation completed"),
    ];
    expect(completions.sort()).toEqual([...ids].sort());
  }, 300_000);
});
