import { randomUUID } from "node:crypto";
import { JOB_NAMES, type GenerateTextJob, type GenerationRequest } from "@chorus/contracts";
import { createTextQueue } from "@chorus/platform/queues";
import { redisKeys } from "@chorus/platform/redis";
import express from "express";
import { Redis } from "ioredis";
import { baselineEnv, serveBaseline } from "./baseline-process.js";

/**
 * Baseline of the submit row: Express 5, the JSON body parser and one `Queue.add` of the same job
 * shape, on the same queue options and the same Redis as the gateway (under its own prefix). No
 * auth, rate limit, validation, status record or logging: what the gateway adds is the difference.
 */
const env = baselineEnv();
const redis = new Redis(env.redisUrl, { maxRetriesPerRequest: 1 });
redis.on("error", () => undefined);
const queue = createTextQueue(redis, redisKeys(env.prefix));
queue.on("error", () => undefined);

const app = express();
app.disable("x-powered-by");
app.set("etag", false);
app.get("/healthz", (_req, res) => {
  res.json({ status: "ok" });
});
app.post("/enqueue", express.json(), async (req, res) => {
  const requestId = randomUUID();
  const job: GenerateTextJob = {
    requestId,
    keyId: "bench",
    model: "default",
    request: req.body as GenerationRequest,
    acceptedAt: Date.now(),
  };
  await queue.add(JOB_NAMES.generateText, job, { jobId: requestId });
  res.json({ id: requestId, tokens: -1 });
});

serveBaseline(app, env.port, async () => {
  await queue.close();
  redis.disconnect();
});
