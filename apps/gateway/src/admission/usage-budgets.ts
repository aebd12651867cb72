import { ApiError, type BudgetHold, type UsageBudgets as BudgetCaps } from "@chorus/contracts";
import type { ApiKeyRecord } from "@chorus/platform/api-keys";
import {
  nextUtcDay,
  nextUtcMonth,
  type BudgetAsk,
  type BudgetRefusal,
  type UsageBudgetLedger,
} from "@chorus/platform/budgets";
import type { GatewayMetrics } from "@chorus/platform/metrics";
import type { LimitPolicy } from "./limit-policy.js";

/** Headers of an accepted request: what its key's usage budgets have left once it is held (where a cap applies). */
export const BUDGET_HEADERS = {
  tokens: "X-Budget-Tokens-Remaining",
  audioSeconds: "X-Budget-Audio-Seconds-Remaining",
} as const;

export interface UsageBudgetsDeps {
  ledger: UsageBudgetLedger;
  limits: LimitPolicy;
  metrics: Pick<GatewayMetrics, "recordBudgetRefusal">;
  now?: () => number;
}

const resetOf = (budget: keyof BudgetCaps, now: number) =>
  budget.endsWith("_month") ? nextUtcMonth(now) : nextUtcDay(now);

/** 429 BUDGET_EXCEEDED for the refusal that lasts longest (a month's outlasts a day's); Retry-After: its reset. */
function budgetExceeded(refused: BudgetRefusal[], ask: BudgetAsk, now: number): ApiError {
  const [first] = [...refused].sort((a, b) => resetOf(b.budget, now) - resetOf(a.budget, now));
  const { budget, cap, inUse } = first as BudgetRefusal;
  const resetsAt = resetOf(budget, now);
  const audio = budget.startsWith("audio_");
  const unit = audio ? "seconds of audio" : "tokens";
  const most = audio ? Math.ceil(ask.audioMs / 1000) : ask.tokens;
  const message =
    `this API key's ${budget} budget is spent: ${inUse} of its ${cap} ${unit} are used or held by requests not yet finished, ` +
    `and this request may use up to ${most}; it resets at ${new Date(resetsAt).toISOString()}`;
  const details = { budget, cap, inUse, resetsAt: new Date(resetsAt).toISOString() };
  // Retrying before the reset would be refused the same way: said with x-should-retry: false.
  return new ApiError("BUDGET_EXCEEDED", message, details, Math.max(1, Math.ceil((resetsAt - now) / 1000)), false);
}

/**
 * Admission's usage-budget step: holds a request's most against its key's budgets per UTC day and
 * month (one script, atomic over every gateway), or refuses it (429 BUDGET_EXCEEDED). The hold goes
 * into the job, whose end settles it (UsageBudgetLedger.settle). Keys without budgets cost nothing.
 */
export class UsageBudgets {
  private readonly now: () => number;

  constructor(private readonly deps: UsageBudgetsDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** The hold for the job (undefined: no cap applies to what it asks); `tell` gets the remaining-budget headers. */
  async hold(
    key: ApiKeyRecord,
    requestId: string,
    ask: BudgetAsk,
    tell: (name: string, value: string) => void,
  ): Promise<BudgetHold | undefined> {
    const caps = this.deps.limits.usageBudgets(key);
    const reservation = await this.deps.ledger.reserve(key.id, requestId, ask, caps);
    if (!reservation) return undefined;
    if (!reservation.held) {
      for (const { budget } of reservation.refused) this.deps.metrics.recordBudgetRefusal(budget);
      throw budgetExceeded(reservation.refused, ask, this.now());
    }
    if (reservation.tokensLeft !== null) tell(BUDGET_HEADERS.tokens, String(reservation.tokensLeft));
    if (reservation.audioSecondsLeft !== null) tell(BUDGET_HEADERS.audioSeconds, String(reservation.audioSecondsLeft));
    return reservation.hold;
  }

  /** What a request admitted earlier holds now (undefined: no budget applied, or it was settled). */
  heldFor(key: ApiKeyRecord, requestId: string): Promise<BudgetHold | undefined> {
    return this.deps.ledger.heldFor(key.id, requestId);
  }

  /** Gives back the hold of a request that was refused or not queued after it was held. */
  release(key: ApiKeyRecord, requestId: string): Promise<boolean> {
    return this.deps.ledger.release(key.id, requestId);
  }
}
