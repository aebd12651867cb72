import type { ModelId } from "@chorus/contracts";
import type { Request, RequestHandler, Response } from "express";

/** A key's per-minute budgets, as admission spends them: each call spends one request or throws the 429. */
export interface Budgets {
  text(model: ModelId): Promise<void>;
  speech(): Promise<void>;
  /** Sets a header of the request's answer: what its usage budgets have left (usage-budgets.ts). */
  tell(name: string, value: string): void;
}

/** The limiters (express-rate-limit over rate-limit-redis) a request's budgets are spent with. */
export interface BudgetLimiters {
  text(model: ModelId): RequestHandler;
  tts: RequestHandler;
}

const BUDGET_HEADERS = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"] as const;

function run(limit: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject: (error: Error) => void) => {
    void limit(req, res, (error?: unknown) => (error ? reject(error as Error) : resolve()));
  });
}

/**
 * The budgets of one HTTP request, spent by running the limiters as a route chain would. The
 * X-RateLimit-* headers describe the first budget spent (that of the path called), so a client's
 * pacing does not change when a text submit with `speak` also spends a speech request; a refusal
 * carries the headers and Retry-After of the budget that said no.
 */
export function requestBudgets(limiters: BudgetLimiters, req: Request, res: Response): Budgets {
  let first = true;
  const spend = async (limit: RequestHandler) => {
    if (first) {
      first = false;
      return run(limit, req, res);
    }
    const own = BUDGET_HEADERS.map((name) => [name, res.getHeader(name)] as const);
    await run(limit, req, res);
    for (const [name, value] of own) if (value !== undefined) res.setHeader(name, value);
  };
  return {
    text: (model) => spend(limiters.text(model)),
    speech: () => spend(limiters.tts),
    tell: (name, value) => void res.setHeader(name, value),
  };
}
