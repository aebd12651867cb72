import { defineLuaScripts, type RedisClient, type RedisKeys } from "@chorus/platform/redis";
import type { StatusStore } from "@chorus/platform/scheduler";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { authenticatedKey, sendJson } from "@chorus/gateway/middleware";
import { setLimitHeaders } from "./limit-headers.js";

/**
 * The status-steps prototype of the alternative to express-rate-limit + rate-limit-redis on the
 * status path: the per-key count taken by a minimal script of the bench's own (count-in-window-1.lua,
 * rate-limit-redis' rule), sent in the same round trip as the gateway's status read (StatusStore.get:
 * the record, and a waiting one's place), so a poll is two Redis commands in one round trip and one
 * route with no library. The whole status route of that step: count, read, headers, 429 over the
 * limit, the record to its owner.
 */
export function countInReadRoute(
  redis: RedisClient,
  keys: RedisKeys,
  statuses: StatusStore,
  windowMs: number,
  limit: number,
): RequestHandler {
  const scripts = defineLuaScripts(redis, new URL("../lua/", import.meta.url), { count: "count-in-window-1.lua" });
  return (req: Request, res: Response, next: NextFunction) => {
    const keyId = authenticatedKey(req).id;
    Promise.all([
      scripts.count(`${keys.rateLimit("count-in-read")}${keyId}`, windowMs) as Promise<[number, number]>,
      statuses.get(String(req.params.id)),
    ]).then(([[hits, ttl], stored]) => {
      setLimitHeaders(res, limit, hits, Date.now() + ttl);
      if (hits > limit) return sendJson(res, 429, { status: "error" });
      if (!stored || stored.owner !== keyId) return sendJson(res, 404, { status: "error" });
      res.setHeader("Cache-Control", "no-store");
      sendJson(res, 200, stored.record);
    }, next);
  };
}
