import type { ApiKeyUsage, Logger, UsageOperation } from "@chorus/platform";
import type { RequestHandler } from "express";
import { authenticatedKey } from "./authenticate.js";

/**
 * `limit`, then, for a request it admits, one more request of `operation` in its key's usage
 * counters. Fire and forget: the counter is written beside the request, never waited for; a failed
 * write is logged and the request goes on (a usage figure may then be short, never an answer late).
 */
export function countedUsage(limit: RequestHandler, usage: ApiKeyUsage, operation: UsageOperation, logger: Logger): RequestHandler {
  return (req, res, next) => {
    void limit(req, res, (error?: unknown) => {
      if (!error) {
        usage.countRequest(authenticatedKey(req).id, operation).catch((e: unknown) => logger.warn("could not count usage", { operation, error: String(e) }));
      }
      next(error);
    });
  };
}
