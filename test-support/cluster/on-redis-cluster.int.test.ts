import { QUEUES } from "@chorus/contracts";
import type { Cluster } from "ioredis";
import request from "supertest";
import { loadGatewayConfig } from "@chorus/gateway";
import { defaultRequest } from "../fixtures.js";
import { startTestGateway, type TestGateway } from "../gateway.js";
import { TEST_REDIS_ENV, uniquePrefix } from "../redis.js";
import { submittedId } from "../response-body.js";

/**
 * Runs only in the `cluster` jest project, beside the contract suites it runs on the cluster: proof
 * that they do (the services' connections are cluster clients), and that the hash tags spread the
 * service's keys over the masters instead of piling them on one.
 */
let gw: TestGateway;
let key: string;
beforeAll(async () => {
  gw = await startTestGateway(uniquePrefix("cluster"));
  key = await gw.createKey();
});
afterAll(() => gw.close());

describe("the gateway on a three-master Redis Cluster", () => {
  it("when the cluster project runs, then the test services connect to the cluster", () => {
    expect(TEST_REDIS_ENV.REDIS_CLUSTER_NODES?.split(",")).toHaveLength(3);
    expect(gw.deps.redis.isCluster).toBe(true);
    expect(gw.deps.queueRedis.isCluster).toBe(true);
  });

  it("when requests are accepted, then their records are spread over every master", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).send(defaultRequest());
      expect(res.status).toBe(200);
      ids.push(submittedId(res));
    }
    const masters = (gw.deps.redis as Cluster).nodes("master");
    expect(masters).toHaveLength(3);
    const recordsPerMaster = await Promise.all(
      masters.map(async (node) =>
        (await Promise.all(ids.map((id) => node.exists(gw.deps.keys.status(id)).catch(() => 0)))).reduce<number>(
          (sum, found) => sum + found,
          0,
        ),
      ),
    );
    // Each record is on exactly one master, and every master holds some (30 ids over 3 masters).
    expect(recordsPerMaster.reduce((a, b) => a + b, 0)).toBe(ids.length);
    for (const count of recordsPerMaster) expect(count).toBeGreaterThan(0);
  });

  it("when keys are used together by one script, transaction or BullMQ queue, then the cluster puts them in one slot", async () => {
    const keys = gw.deps.keys;
    const slotsOf = async (group: string[]) =>
      new Set(await Promise.all(group.map((k) => gw.deps.redis.call("CLUSTER", "KEYSLOT", k))));
    const groups = [
      // BullMQ's text queue, and the sets the status scripts keep beside it.
      [
        keys.bullJob(QUEUES.text, "job-1"),
        `${keys.bullPrefix(QUEUES.text)}:${QUEUES.text}:wait`,
        keys.textJobTickets(),
        keys.textJobsWaiting(),
        keys.textQueueTurns(),
        keys.textJobsBacklog(),
        keys.textRequestsInFlight(),
        keys.textRequestOwners(),
        keys.textRequestsUnfinished(),
        keys.textJobStats(),
        keys.workerSlots(),
      ],
      [keys.bullJob(QUEUES.speech, "job-1"), `${keys.bullPrefix(QUEUES.speech)}:${QUEUES.speech}:wait`],
      [keys.status("req-1"), keys.audio("req-1"), keys.audioMeta("req-1")],
      [keys.apiKeyBySecretHash("hash"), keys.apiKeyIndex(), keys.apiKeyNames()],
      [
        keys.textRequestsOfApiKey("key_1"),
        keys.apiKeyUsage("key_1", "2026-01-01"),
        keys.apiKeyUsage("key_1", "2026-01-31"),
        keys.idempotency("key_1", "k"),
        keys.openStreamsOfApiKey("key_1"),
      ],
    ];
    for (const group of groups) expect([group, (await slotsOf(group)).size]).toEqual([group, 1]);
    // And what is per request, per API key or per queue lands in many slots.
    const many = Array.from({ length: 50 }, (_, i) => `id-${i}`);
    expect((await slotsOf(many.map((id) => keys.status(id)))).size).toBeGreaterThan(45);
    expect((await slotsOf(many.map((id) => keys.apiKeyUsage(id, "2026-01-01")))).size).toBeGreaterThan(45);
    expect((await slotsOf(Object.values(QUEUES).map((queue) => keys.bullPrefix(queue)))).size).toBe(
      Object.values(QUEUES).length,
    );
  });

  it("when REDIS_WAIT_REPLICAS is set with a cluster, then the gateway refuses to start with a clear message", () => {
    expect(() => loadGatewayConfig({ ...TEST_REDIS_ENV, REDIS_WAIT_REPLICAS: "1" })).toThrow(
      /REDIS_WAIT_REPLICAS: not supported with REDIS_CLUSTER_NODES/,
    );
  });
});
