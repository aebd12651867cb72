import type { BudgetHold, StatusRecord } from "@chorus/contracts";
import { UsageBudgetLedger, type Settlement } from "@chorus/platform/budgets";
import type { Logger } from "@chorus/platform/logger";
import type { RidesWithMetering } from "@chorus/platform/usage";
import type { StatusStore } from "@chorus/platform/scheduler";

/** What a finished job really used: tokens (prompt + completion) and ms of audio. */
export interface JobUse {
  tokens: number;
  audioMs: number;
}

export const NOTHING_USED: JobUse = { tokens: 0, audioMs: 0 };

/** The use a final record states: a completed one's prompt and reply tokens; any other, nothing. */
export function useOfRecord(record: StatusRecord | undefined): JobUse {
  if (record?.status !== "completed") return NOTHING_USED;
  return { tokens: (record.tokens ?? 0) + (record.promptTokens ?? 0), audioMs: 0 };
}

/** Whose job it is, and what admission held for it (its period: where it was held, else when accepted). */
export interface BudgetOwner {
  keyId: string;
  requestId: string;
  acceptedAt: number;
  budget?: BudgetHold | undefined;
}

/**
 * Settles a finished job with its key's usage budgets (its hold given back, its use added; once per
 * job id, whoever calls it again), in a batch of its own: one round trip on the finishing path.
 * Never fails the job: a settlement that cannot be written leaves the hold held until its period's
 * counters expire (a key refused too early, never one let past its budget), and is logged.
 */
export async function settleJobBudget(
  ledger: UsageBudgetLedger,
  job: BudgetOwner,
  use: JobUse,
  log: Logger,
): Promise<void> {
  const settlement = settlementOf(job, use);
  try {
    const replies = await ledger.settleIn(ledger.pipeline(), settlement).exec();
    const failed = replies?.find(([error]) => error)?.[0];
    if (failed) throw failed;
  } catch (error) {
    log.warn("could not settle the key's usage budgets", { jobId: job.requestId, error: String(error) });
  }
}

function settlementOf(job: BudgetOwner, use: JobUse): Settlement {
  const { day, month } = UsageBudgetLedger.periodOf(job);
  return { keyId: job.keyId, requestId: job.requestId, day, month, ...use };
}

/**
 * The settlement as a rider on the job's metering batch (StatusStore.complete's `alongside`): no round
 * trip of its own. `sent()` says whether the batch took it; one that did not (the record was already
 * final, so this writer meters nothing) is settled with settleJobBudget.
 */
export function settlementRider(ledger: UsageBudgetLedger, job: BudgetOwner, use: JobUse) {
  let taken = false;
  return {
    ride: ((batch) => {
      ledger.settleIn(batch, settlementOf(job, use));
      taken = true;
    }) satisfies RidesWithMetering,
    sent: () => taken,
  };
}

/**
 * A job found already final when it starts settles as its record says (an attempt that wrote the
 * record may have died before settling); one without a record (`recorded` false) used nothing.
 */
export async function settleAsRecorded(
  deps: { budgets: UsageBudgetLedger; statuses: StatusStore },
  job: BudgetOwner,
  recorded: boolean,
  log: Logger,
): Promise<void> {
  const stored = recorded ? await deps.statuses.get(job.requestId).catch(() => null) : null;
  await settleJobBudget(deps.budgets, job, useOfRecord(stored?.record), log);
}
