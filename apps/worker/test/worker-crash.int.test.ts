import type { StatusRecord } from "@chorus/contracts";
import request from "supertest";
import { defaultRequest, describeWithModel } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import type { RunningChild } from "@chorus/local-runtime";
import { startApp, waitForOutput } from "../../../test-support/processes.js";
import { TEST_REDIS_URL, uniquePrefix } from "../../../test-support/redis.js";
import { waitFor } from "../../../test-support/wait-for.js";
import { finalRecord } from "../../../test-support/records.js";
import { submittedId } from "../../../test-support/response-body.js";

describeWithModel("a worker killed mid-generation (real worker processes)", () => {
  let gw: TestGateway;
  const workers: RunningChild[] = [];
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.kill("SIGKILL")));
    await gw.close();
  }, 60_000);

  it("when kill -9 hits a worker, then another worker finishes every accepted job exactly once", async () => {
    const prefix = uniquePrefix("crash");
    gw = await startTestGateway(prefix);
    const key = await gw.createKey({ limits: { status: 1_000_000 } });
    // Short locks so the dead worker's jobs come back quickly (the minimum JOB_LOCK_MS).
    const env = { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix, JOB_LOCK_MS: "5000", WORKER_CONCURRENCY: "2" };
    const victim = startApp("worker", env);
    workers.push(victim);
    await waitForOutput(victim, /worker ready/);

    const body = { ...defaultRequest(), samplingParams: { max_tokens: 300, temperature: 1.2 } };
    const ids: string[] = [];
    for (let i = 0; i < 4; i++)
      ids.push(submittedId(await request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).send(body)));
    const status = async (id: string) =>
      (await request(gw.app).get(`/api/v2/status/${id}`).auth(key, { type: "bearer" })).body as StatusRecord;

    // Kill the worker while it is generating.
    await waitFor("the first job generating", async () => ((await status(ids[0]!)).progress ?? 0) > 0, {
      intervalMs: 10,
    });
    expect((await status(ids[0]!)).status).toBe("processing");
    victim.process.kill("SIGKILL");
    await victim.exited;

    const rescuer = startApp("worker", env);
    workers.push(rescuer);
    const finals: StatusRecord[] = [];
    // A hang guard for loaded machines, not a timing.
    for (const id of ids) finals.push(await finalRecord(gw.app, key, id, 240_000));
    if (finals.some((r) => r.status !== "completed")) process.stderr.write(rescuer.output().slice(-3000));
    expect(finals.map((r) => r.status)).toEqual(["completed", "completed", "completed", "completed"]);
    for (const r of finals) expect(r.tokens).toBeGreaterThan(0);
    // Each reply was stored once: the rescuer logged one completion per job, and no job twice.
    const completions = rescuer
      .output()
      .split("\n")
      .filter((l) => l.includes("generation completed"))
      .map((l) => (JSON.parse(l) as { jobId: string }).jobId);
    expect(new Set(completions).size).toBe(completions.length);
    // The job the victim was generating when it died was started again by the rescuer.
    const rescued = rescuer
      .output()
      .split("\n")
      .filter((l) => l.includes("generation started"))
      .map((l) => (JSON.parse(l) as { jobId: string }).jobId);
    expect(rescued).toContain(ids[0]);
  }, 300_000);
});
