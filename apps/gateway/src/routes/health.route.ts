import { INSTANCE_HEADER } from "@chorus/platform/process";
import { type RedisClient } from "@chorus/platform/redis";
import type { IRouter } from "express";

/**
 * Unauthenticated probes: /healthz says the process serves; /readyz that Redis answers on every
 * connection. Both name the run (`instanceId`, set by npm start) so its launcher knows its own gateway.
 */
export function addHealthRoutes(router: IRouter, connections: RedisClient[], instanceId?: string): void {
  if (instanceId) {
    router.use(["/healthz", "/readyz"], (_req, res, next) => {
      res.setHeader(INSTANCE_HEADER, instanceId);
      next();
    });
  }
  router.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  router.get("/readyz", async (_req, res) => {
    const answers = await Promise.all(connections.map(answersPing));
    const ready = answers.every(Boolean);
    // The first connection that is not ready says why (all share one Redis, so they fail together).
    const status = connections.find((redis) => redis.status !== "ready")?.status ?? "ready";
    res.status(ready ? 200 : 503).json({ status: ready ? "ready" : "unavailable", redis: status });
  });
}

async function answersPing(redis: RedisClient): Promise<boolean> {
  if (redis.status !== "ready") return false;
  return redis.ping().then(
    () => true,
    () => false,
  );
}
