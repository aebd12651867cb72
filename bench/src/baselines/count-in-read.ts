import { statusReadKeys, storedStatusFromRead, type RedisKeys, type StatusReadReply } from "@chorus/platform";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { Redis } from "ioredis";
import { READ } from "../../../packages/platform/dist/status/status-scripts.js";
import { authenticatedKey } from "../../../apps/gateway/dist/middleware/authenticate.js";
import { sendJson } from "../../../apps/gateway/dist/routes/send-json.js";
import { setLimitHeaders } from "./limit-headers.js";

/**
 * The status-steps prototype of the alternative to express-rate-limit + rate-limit-redis on the
 * status path: the per-key count taken by the status READ script itself, by rate-limit-redis' rule
 * (a new window starts at 1 with the window's expiry, else INCR), so a poll is one Redis command.
 * KEYS: rate-limit key, then READ's four keys; ARGV: window ms, now ms. Returns {hits, ttl ms, READ's reply}.
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
local read = (function(KEYS, ARGV) ${READ} end)({KEYS[2], KEYS[3], KEYS[4], KEYS[5]}, {ARGV[2]})
return {hits, ttl, read}
`;

type CountAndRead = (...args: (string | number)[]) => Promise<[number, number, StatusReadReply]>;

/** The whole status route of that step: count, read, headers, 429 over the limit, the record to its owner. */
export function countInReadRoute(redis: Redis, keys: RedisKeys, windowMs: number, limit: number): RequestHandler {
  redis.defineCommand("benchCountAndRead", { numberOfKeys: 5, lua: COUNT_AND_READ });
  const countAndRead = (redis as unknown as { benchCountAndRead: CountAndRead }).benchCountAndRead.bind(redis);
  return (req: Request, res: Response, next: NextFunction) => {
    const keyId = authenticatedKey(req).id;
    const readKeys = statusReadKeys(keys, String(req.params.id));
    countAndRead(`${keys.rateLimit("count-in-read")}${keyId}`, ...readKeys, windowMs, Date.now()).then(([hits, ttl, read]) => {
      setLimitHeaders(res, limit, hits, Date.now() + ttl);
      if (hits > limit) return sendJson(res, 429, { status: "error" });
      // As the gateway answers: the same parser of the READ reply, the same ownership check.
      const stored = storedStatusFromRead(read);
      if (!stored || stored.owner !== keyId) return sendJson(res, 404, { status: "error" });
      res.setHeader("Cache-Control", "no-store");
      sendJson(res, 200, stored.record);
    }, next);
  };
}
