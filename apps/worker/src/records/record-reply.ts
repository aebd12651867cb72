import type { BudgetHold } from "@chorus/contracts";
import type { ApiKeyUsage } from "@chorus/platform/api-keys";
import type { UsageBudgetLedger } from "@chorus/platform/budgets";
import type { Logger } from "@chorus/platform/logger";
import { measuredTurnCost, type Completion, type StatusStore } from "@chorus/platform/scheduler";
import { retryFinalWrite } from "./retry-final-write.js";
import { settleJobBudget } from "./settle-budget.js";

export interface RecordReplyDeps {
  statuses: StatusStore;
  usage: ApiKeyUsage;
  budgets: UsageBudgetLedger;
}

/** Whose reply it is, what admission charged its key in turns (absent in older jobs), and what it held of its budgets. */
export interface ReplyOwner {
  requestId: string;
  keyId: string;
  turnCost?: number | undefined;
  acceptedAt: number;
  budget?: BudgetHold | undefined;
}

/**
 * Writes a completed record, whichever job ends the request (its text job, or its spoken reply's on the
 * speech queue). A reply that cannot be written is not thrown away at the first error: a failed attempt
 * would generate it all over again. Only the attempt that wrote the record counts its tokens and spoken
 * seconds (as the record says, once) and corrects its key's turns by what it really cost. Resolves to
 * whether this call wrote it.
 */
export async function recordReply(
  deps: RecordReplyDeps,
  owner: ReplyOwner,
  completion: Completion,
  spokenSeconds: number,
  log: Logger,
): Promise<boolean> {
  const onRetry = (error: unknown, attempt: number) =>
    log.warn("could not record reply; retrying", { attempt, error: String(error) });
  const written = await retryFinalWrite(() => deps.statuses.complete(owner.requestId, completion), { onRetry });
  // What the engine did is the key's use whoever wrote the record (a cancel arriving as it finished).
  const use = { tokens: completion.tokens + completion.promptTokens, audioMs: Math.round(spokenSeconds * 1000) };
  await settleJobBudget(deps.budgets, owner, use, log);
  if (!written) return false;
  const { keyId, turnCost } = owner;
  const counted = Promise.all([
    deps.usage.countGeneration(keyId, completion.tokens, completion.promptTokens),
    spokenSeconds > 0 ? deps.usage.countSpeech(keyId, spokenSeconds) : null,
    turnCost === undefined ? null : deps.statuses.settleTurn(keyId, turnCost, measuredTurnCost(completion)),
  ]);
  await counted.catch((e: unknown) => log.warn("could not count usage or settle the turn", { error: String(e) }));
  return true;
}
