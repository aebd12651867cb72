import {
  hashOfFlatReply,
  QUEUE_PLACE,
  queuePlaceKeys,
  storedStatusOf,
  type QueuePlaceReply,
  type RedisClient,
  type RedisKeys,
} from "@chorus/platform";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { authenticatedKey, sendJson } from "@chorus/gateway/middleware";
import { setLimitHeaders } from "./limit-headers.js";

/**
 * The status-steps prototype of the alternative to express-rate-limit + rate-limit-redis on the
 * status path: the per-key count taken by the script that reads the record, by rate-limit-redis' rule
 * (a new window starts at 1 with the window's expiry, else INCR), with the queue place sent beside
 * it, so a poll is two Redis commands in one round trip (one Redis: the bench's). The gateway
 * itself sends its read script (the record, and a waiting one's place) beside the limiter's.
 * KEYS: rate-limit key, status key; ARGV: window ms. Returns {hits, ttl ms, the record's flat fields}.
 */
const COUNT_AND_READ = `
local ttl = redis.call('PTTL', KEYS[1])
local hits
if ttl <= 0 then
  redis.call('SET', KEYS[1], 1, 'PX', ARGV[1])
  hits, ttl = 1, tonumber(ARGV[1])
else
  hits = redis.call('INCR', KEYS[1])
end
return {hits, ttl, redis.call('HGETALL', KEYS[2])}
`;

type CountAndRead = (...args: (string | number)[]) => Promise<[number, number, string[]]>;
type QueuePlace = (...args: (string | number)[]) => Promise<QueuePlaceReply>;

/** The whole status route of that step: count, read, headers, 429 over the limit, the record to its owner. */
export function countInReadRoute(redis: RedisClient, keys: RedisKeys, windowMs: number, limit: number): RequestHandler {
  redis.defineCommand("benchCountAndRead", { numberOfKeys: 2, lua: COUNT_AND_READ });
  redis.defineCommand("benchQueuePlace", { numberOfKeys: 3, lua: QUEUE_PLACE });
  const scripts = redis as unknown as { benchCountAndRead: CountAndRead; benchQueuePlace: QueuePlace };
  return (req: Request, res: Response, next: NextFunction) => {
    const keyId = authenticatedKey(req).id;
    const id = String(req.params.id);
    const now = Date.now();
    Promise.all([
      scripts.benchCountAndRead(`${keys.rateLimit("count-in-read")}${keyId}`, keys.status(id), windowMs),
      scripts.benchQueuePlace(...queuePlaceKeys(keys), now, id),
    ]).then(([[hits, ttl, flat], place]) => {
      setLimitHeaders(res, limit, hits, Date.now() + ttl);
      if (hits > limit) return sendJson(res, 429, { status: "error" });
      // As the gateway answers: the same parser of the record and its place, the same ownership check.
      const stored = storedStatusOf(hashOfFlatReply(flat), place);
      if (!stored || stored.owner !== keyId) return sendJson(res, 404, { status: "error" });
      res.setHeader("Cache-Control", "no-store");
      sendJson(res, 200, stored.record);
    }, next);
  };
}
