import { QUEUES, type GenerateTextJob } from "@chorus/contracts";
import { createWorkerRedis, redisKeys } from "@chorus/platform/redis";
import { StatusStore } from "@chorus/platform/scheduler";
import { Worker, type Job } from "bullmq";
import { nowMs, sleep } from "../metrics/clock.js";
import { exitWhenAsked } from "./baseline-process.js";
import type { ProbeMessage } from "./probe-messages.js";

/**
 * A BullMQ worker on the real queue and the real StatusStore whose "generation" is a fixed wait
 * (HOLD_MS, default 0). It is the queue row's probe: it stamps when each job starts and when its
 * work is done (just before writing `completed`, as the real processor does) and reports both over
 * IPC. It is also the memory row's baseline worker. One Worker per prefix in PREFIXES, each running
 * CONCURRENCY jobs at once (default 8).
 */
const redisUrl = process.env.REDIS_URL ?? "";
const prefixes = (process.env.PREFIXES ?? "").split(",").filter(Boolean);
const holdMs = Number(process.env.HOLD_MS ?? 0);
const concurrency = Number(process.env.CONCURRENCY ?? 8);
const reporting = process.env.REPORT === "1";

const report = (message: ProbeMessage) => {
  if (reporting && process.send) process.send(message);
};

const connection = createWorkerRedis(redisUrl);
connection.on("error", () => undefined);

function processor(statuses: StatusStore) {
  return async (job: Job<GenerateTextJob>) => {
    const id = job.id ?? job.data.requestId;
    report({ kind: "started", id, at: nowMs() });
    // As the real processor does, alongside its work: the record says started and the queue's
    // serving turn moves up (fair-turns.ts), which the turns of later requests start from.
    await Promise.all([statuses.markStarted(job.data.requestId), holdMs > 0 ? sleep(holdMs) : undefined]);
    const finishedAt = nowMs();
    await statuses.complete(job.data.requestId, {
      reply: "",
      tokens: 0,
      promptTokens: 0,
      cachedTokens: 0,
      processingTime: holdMs / 1000,
      droppedMessages: 0,
      finishReason: "stop",
      maxTokens: 1,
    });
    report({ kind: "finished", id, at: finishedAt });
  };
}

const workers = prefixes.map((prefix) => {
  const keys = redisKeys(prefix);
  const worker = new Worker<GenerateTextJob>(QUEUES.text, processor(new StatusStore(connection, keys, 3600)), {
    connection,
    prefix: keys.bullPrefix(QUEUES.text),
    concurrency,
  });
  worker.on("error", (error) => process.stderr.write(`noop worker: ${error.message}\n`));
  return worker;
});

exitWhenAsked(async () => {
  await Promise.all(workers.map((w) => w.close()));
  connection.disconnect();
});
await Promise.all(workers.map((w) => w.waitUntilReady()));
if (process.send) process.send({ kind: "ready" } satisfies ProbeMessage);
