import type { RedisClient, RedisKeys } from "@chorus/platform/redis";
import type { StatusStore } from "@chorus/platform/scheduler";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { authenticatedKey, sendJson } from "@chorus/gateway/middleware";
import { setLimitHeaders } from "./limit-headers.js";

/**
 * The status-steps prototype of the alternative to express-rate-limit + rate-limit-redis on the
 * status path: the per-key count taken by a minimal script of the bench's own, by rate-limit-redis'
 * rule (a new window starts at 1 with the window's expiry, else INCR), sent in the same round trip
 * as the gateway's status read (StatusStore.get: the record, and a waiting one's place), so a poll
 * is two Redis commands in one round trip and one route with no library.
 * KEYS: rate-limit key; ARGV: window ms. Returns {hits, ttl ms}.
 */
const COUNT = `
local ttl = redis.call('PTTL', KEYS[1])
if ttl <= 0 then
  redis.call('SET', KEYS[1], 1, 'PX', ARGV[1])
  return {1, tonumber(ARGV[1])}
end
return {redis.call('INCR', KEYS[1]), ttl}
`;

type Count = (...args: (string | number)[]) => Promise<[number, number]>;

/** The whole status route of that step: count, read, headers, 429 over the limit, the record to its owner. */
export function countInReadRoute(
  redis: RedisClient,
  keys: RedisKeys,
  statuses: StatusStore,
  windowMs: number,
  limit: number,
): RequestHandler {
  redis.defineCommand("benchCount", { numberOfKeys: 1, lua: COUNT });
  const scripts = redis as unknown as { benchCount: Count };
  return (req: Request, res: Response, next: NextFunction) => {
    const keyId = authenticatedKey(req).id;
    Promise.all([
      scripts.benchCount(`${keys.rateLimit("count-in-read")}${keyId}`, windowMs),
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
