import type { Response } from "express";

/**
 * The three headers the gateway's limiters send (express-rate-limit's legacy headers, reset in epoch
 * seconds), for the status steps that count without express-rate-limit: their answers stay the
 * gateway's size and their cost includes writing them.
 */
export function setLimitHeaders(res: Response, limit: number, hits: number, resetAtMs: number): void {
  res.setHeader("X-RateLimit-Limit", String(limit));
  res.setHeader("X-RateLimit-Remaining", String(Math.max(limit - hits, 0)));
  res.setHeader("X-RateLimit-Reset", String(Math.ceil(resetAtMs / 1000)));
}
