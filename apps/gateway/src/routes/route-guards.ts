import type { RequestHandler } from "express";

/**
 * What an API route runs before its own handlers: the API-key check first (every later step needs
 * the key), then the route's per-key rate limit. Routes place them in their own chains.
 */
export interface RouteGuards {
  authenticate: RequestHandler;
  limit: RequestHandler;
}
