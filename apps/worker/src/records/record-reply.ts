import type { BudgetHold } from "@chorus/contracts";
import type { UsageBudgetLedger } from "@chorus/platform/budgets";
import type { Logger } from "@chorus/platform/logger";
import { measuredTurnCost, type Completion, type StatusStore } from "@chorus/platform/scheduler";
import { retryFinalWrite } from "./retry-final-write.js";
import { settleJobBudget, settlementRider } from "./settle-budget.js";

export interface RecordReplyDeps {
  statuses: StatusStore;
  budgets: UsageBudgetLedger;
}

/** Whose reply it is, its turn charge and weight (absent in older jobs), and what it held of its key's budgets. */
export interface ReplyOwner {
  requestId: string;
  keyId: string;
  turnCost?: number | undefined;
  turnWeight?: number | undefined;
  acceptedAt: number;
  budget?: BudgetHold | undefined;
}

/**
 * Writes a completed record, whichever job ends the request (its text job, or its spoken reply's on the
 * speech queue). A reply that cannot be written is not thrown away at the first error: a failed attempt
 * would generate it all over again. The store meters the job into its key's usage as it writes the
 * record (once, whoever writes it: `spoken` is what was spoken); the key's budgets are settled with
 * what the engine did whoever wrote it; only the writer corrects its key's turns by what it really
 * cost. Resolves to whether this call wrote it.
 */
export async function recordReply(
  deps: RecordReplyDeps,
  owner: ReplyOwner,
  completion: Completion,
  spoken: { characters: number; audioSeconds: number } | undefined,
  log: Logger,
): Promise<boolean> {
  const onRetry = (error: unknown, attempt: number) =>
    log.warn("could not record reply; retrying", { attempt, error: String(error) });
  const recorded = { ...completion, ...(spoken && { spoken }) };
  // What the engine did is the key's use whoever wrote the record (a cancel arriving as it finished).
  const audioMs = Math.round((spoken?.audioSeconds ?? 0) * 1000);
  const use = { tokens: completion.tokens + completion.promptTokens, audioMs };
  // Settled in the metering batch of the write that turns the record final; else on its own.
  const settlement = settlementRider(deps.budgets, owner, use);
  const written = await retryFinalWrite(() => deps.statuses.complete(owner.requestId, recorded, settlement.ride), {
    onRetry,
  });
  if (!settlement.sent()) await settleJobBudget(deps.budgets, owner, use, log);
  if (!written) return false;
  const { keyId, turnCost, turnWeight = 1 } = owner;
  if (turnCost !== undefined)
    await deps.statuses
      .settleTurn(keyId, turnCost, measuredTurnCost(completion) * turnWeight)
      .catch((e: unknown) => log.warn("could not settle the turn", { error: String(e) }));
  return true;
}
