import type { UsageOperation } from "@chorus/platform/api-keys";
import type { RequestHandler } from "express";
import type { RequestCounts } from "../services/request-counts.js";
import { authenticatedKey } from "./authenticate.js";

/**
 * `limit`, then, for a request it admits, one more request of `operation` in its key's usage
 * counters: counted in memory, added to Redis about once a second (RequestCounts), never waited for.
 */
export function countedUsage(limit: RequestHandler, counts: RequestCounts, operation: UsageOperation): RequestHandler {
  return (req, res, next) => {
    void limit(req, res, (error?: unknown) => {
      if (!error) counts.count(authenticatedKey(req).id, operation);
      next(error);
    });
  };
}
