import type { Request, RequestHandler, Response } from "express";

const BUDGET_HEADERS = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"] as const;

/**
 * Spends one unit of a second budget in a route that has already spent one of its own: a text
 * submit with `speak` also spends one of the key's speech budget, through the limiter of
 * POST /api/tts (so the same counter, and express-rate-limit decides). Admitted, the answer keeps
 * the route's own X-RateLimit-* headers: they describe the budget of the path called, as on every
 * submit, so a client's pacing of submits does not change with `speak`. Refused, it carries the
 * second limiter's headers and Retry-After: those of the budget that said no, agreeing with the 429.
 */
export function spendSecondBudget(limit: RequestHandler, req: Request, res: Response): Promise<void> {
  const own = BUDGET_HEADERS.map((name) => [name, res.getHeader(name)] as const);
  return new Promise((resolve, reject: (error: Error) => void) => {
    void limit(req, res, (error?: unknown) => {
      if (error) return reject(error as Error);
      for (const [name, value] of own) if (value !== undefined) res.setHeader(name, value);
      resolve();
    });
  });
}
