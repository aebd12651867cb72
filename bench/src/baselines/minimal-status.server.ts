import { redisKeys } from "@chorus/platform/redis";
import express from "express";
import { Redis } from "ioredis";
import { baselineEnv, serveBaseline } from "./baseline-process.js";

/**
 * Baseline of the status row: Express 5 and one HGETALL of the same status hash the gateway reads
 * (same prefix), answered as JSON. No auth, rate limit, ownership check or record mapping.
 */
const env = baselineEnv();
const redis = new Redis(env.redisUrl, { maxRetriesPerRequest: 1 });
redis.on("error", () => undefined);
const keys = redisKeys(env.prefix);

const app = express();
app.disable("x-powered-by");
app.set("etag", false);
app.get("/healthz", (_req, res) => {
  res.json({ status: "ok" });
});
app.get("/status/:id", async (req, res) => {
  const hash = await redis.hgetall(keys.status(String(req.params.id)));
  res.status(hash.status ? 200 : 404).json(hash);
});

serveBaseline(app, env.port, () => redis.disconnect());
