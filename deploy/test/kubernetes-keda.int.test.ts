import { afterAll, describe, expect, it } from "@jest/globals";
import { JOB_NAMES, QUEUES, type GenerateTextJob } from "@chorus/contracts";
import { createTextQueue } from "@chorus/platform/queues";
import { createWorkerRedis, redisKeys } from "@chorus/platform/redis";
import { StatusStore } from "@chorus/platform/scheduler";
import { ScaledObject, TriggerAuthentication } from "@kubernetes-models/keda/keda.sh/v1alpha1";
import { QueueKeys, Worker } from "bullmq";
import { Deployment } from "kubernetes-models/apps/v1";
import { Secret } from "kubernetes-models/v1";
import { loadWorkerConfig } from "@chorus/worker";
import { deleteKeysWithPrefix, TEST_REDIS_URL, uniquePrefix } from "../../test-support/redis.js";
import { BASE_DIR, containerEnv, kustomize, objectsOf } from "./kubernetes-base.js";

// The workers' autoscaling: KEDA's redis scaler reads the length of a Redis list (LLEN). These
// checks tie the ScaledObject to the worker Deployment, to the Secret KEDA logs in with, and its
// list names to the keys BullMQ (the version installed) really keeps the text queue's jobs in.

const objects = kustomize(BASE_DIR);
const workerDeployment = objectsOf(objects, Deployment).find(
  (d) => d.metadata?.labels?.["app.kubernetes.io/component"] === "worker",
)!;
const podSpec = workerDeployment.spec!.template.spec!;
const workerConfig = loadWorkerConfig(
  containerEnv(
    objects,
    podSpec.containers.find((c) => c.name === "worker")!,
    podSpec.containers,
  ),
);
const [scaledObject, ...moreScaledObjects] = objectsOf(objects, ScaledObject);
const triggers = scaledObject?.spec.triggers ?? [];
const secrets = objectsOf(objects, Secret);

/** BullMQ's key of one of the text queue's lists, under a REDIS_PREFIX (built by BullMQ's own QueueKeys). */
const textQueueList = (prefix: string, list: "active") =>
  new QueueKeys(redisKeys(prefix).bullPrefix(QUEUES.text)).toKey(QUEUES.text, list);

describe("the workers' KEDA ScaledObject", () => {
  it("when KEDA scales, then it scales the worker Deployment, between at least one worker and more", () => {
    expect(moreScaledObjects).toEqual([]);
    expect(scaledObject?.spec.scaleTargetRef).toEqual({
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: workerDeployment.metadata?.name,
    });
    expect(scaledObject?.spec.minReplicaCount).toBeGreaterThanOrEqual(1);
    expect(scaledObject?.spec.maxReplicaCount).toBeGreaterThan(scaledObject?.spec.minReplicaCount ?? 0);
  });

  it("when it reads the text queue, then its lists are the waiting jobs' backlog and BullMQ's active list under the pods' REDIS_PREFIX, active counted in worker slots", () => {
    const lists = triggers.map((t) => ({ type: t.type, listName: t.metadata.listName }));
    expect(lists).toEqual([
      { type: "redis", listName: redisKeys(workerConfig.REDIS_PREFIX).textJobsBacklog() },
      { type: "redis", listName: textQueueList(workerConfig.REDIS_PREFIX, "active") },
    ]);
    const [waiting, active] = triggers.map((t) => Number(t.metadata.listLength));
    expect(waiting).toBeGreaterThanOrEqual(workerConfig.WORKER_CONCURRENCY);
    expect(active).toBe(workerConfig.WORKER_CONCURRENCY);
  });

  it("when KEDA connects to Redis, then with address and password from keys of the Secret, none written in the ScaledObject", () => {
    const authentications = objectsOf(objects, TriggerAuthentication);
    for (const trigger of triggers) {
      expect(Object.keys(trigger.metadata).sort()).toEqual(["listLength", "listName"]);
      const auth = authentications.find((a) => a.metadata?.name === trigger.authenticationRef?.name);
      expect(auth?.spec?.secretTargetRef?.map((r) => r.parameter).sort()).toEqual(["address", "password"]);
      for (const ref of auth?.spec?.secretTargetRef ?? []) {
        expect(secrets.find((s) => s.metadata?.name === ref.name)?.stringData?.[ref.key]).toBeDefined();
      }
    }
  });

  it("when the example Secret is read, then its secrets say they are examples, and its REDIS_URL names the same Redis KEDA is given", () => {
    const [secret] = secrets;
    const values = secret?.stringData ?? {};
    const url = new URL(values["redis-url"]!);
    expect(url.host).toBe(values["redis-address"]);
    expect(decodeURIComponent(url.password)).toBe(values["redis-password"]);
    for (const value of [values["redis-password"], values["metrics-token"]]) expect(value).toMatch(/example/);
  });
});

describe("BullMQ's text queue in Redis", () => {
  const prefix = uniquePrefix("k8s-lists");
  afterAll(() => deleteKeysWithPrefix(TEST_REDIS_URL, prefix));

  it("when a text job waits and then runs, then it is counted in the backlog list and then in the active list the triggers name (LLEN counts it)", async () => {
    const keys = redisKeys(prefix);
    const connection = createWorkerRedis(TEST_REDIS_URL);
    const queue = createTextQueue(connection, keys);
    const worker = new Worker(QUEUES.text, null, { connection, prefix: keys.bullPrefix(QUEUES.text) });
    const statuses = new StatusStore(connection, keys, 60);
    const [backlog, active] = [keys.textJobsBacklog(), textQueueList(prefix, "active")];
    try {
      // As a submit does (TextJobs): the record and its turn, then the job with that turn as its priority.
      const joined = await statuses.create("k8s-check", "key_k8s", "default");
      await queue.add(JOB_NAMES.generateText, { requestId: "k8s-check" } as GenerateTextJob, {
        jobId: "k8s-check",
        priority: joined.joined ? joined.turn : 0,
      });
      expect([await connection.type(backlog), await connection.llen(backlog)]).toEqual(["list", 1]);
      expect((await worker.getNextJob("k8s-token"))?.id).toBe("k8s-check");
      expect(await statuses.markStarted("k8s-check")).toBe("processing"); // as the worker's processor does first
      expect([
        await connection.llen(backlog),
        await connection.type(active),
        await connection.lrange(active, 0, -1),
      ]).toEqual([0, "list", ["k8s-check"]]);
    } finally {
      await worker.close();
      await queue.close();
      connection.disconnect();
    }
  });
});
