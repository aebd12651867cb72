import { Router } from "express";
import type { Redis } from "ioredis";

/** Unauthenticated probes: /healthz says the process serves; /readyz that Redis answers. */
export function healthRouter(redis: Redis): Router {
  const router = Router();
  router.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  router.get("/readyz", async (_req, res) => {
    const ready = redis.status === "ready" && (await redis.ping().then(() => true, () => false));
    res.status(ready ? 200 : 503).json({ status: ready ? "ready" : "unavailable", redis: redis.status });
  });
  return router;
}
