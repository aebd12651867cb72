/** Per-minute request budgets of one API key, per operation (text is per model). */
export interface OperationLimits {
  text: number;
  tts: number;
  status: number;
}

export const LIMITED_OPERATIONS = ["text", "tts", "status"] as const satisfies readonly (keyof OperationLimits)[];

/** The spec's limits (requests per minute). */
export const DEFAULT_LIMITS: OperationLimits = { text: 100, tts: 60, status: 200 };

/**
 * What one API key may hold at once (not per minute): text requests in flight, open status streams and
 * waits, webhook deliveries queued and not yet ended, batches not yet final.
 */
export interface HoldingCaps {
  inflight: number;
  streams: number;
  webhooks: number;
  batches: number;
}

export const CAPPED_HOLDINGS = [
  "inflight",
  "streams",
  "webhooks",
  "batches",
] as const satisfies readonly (keyof HoldingCaps)[];

/**
 * What one API key may use per UTC day and per UTC month (usage budgets): tokens (prompt and
 * completion) and seconds of synthesized audio. Absent: no cap.
 */
export interface UsageBudgets {
  tokens_day: number;
  tokens_month: number;
  audio_seconds_day: number;
  audio_seconds_month: number;
}

export const USAGE_BUDGETS = [
  "tokens_day",
  "tokens_month",
  "audio_seconds_day",
  "audio_seconds_month",
] as const satisfies readonly (keyof UsageBudgets)[];

/** The largest budget accepted: well inside the integers Lua (a double) counts exactly. */
export const MAX_USAGE_BUDGET = 1_000_000_000_000;

/**
 * A key's priority tier, set by the operator: how its text requests' turns weigh against other keys'
 * (the weights are the scheduler's, docs/architecture.md#fair-turns). Absent: normal.
 */
export const PRIORITY_TIERS = ["high", "normal", "low"] as const;
export type PriorityTier = (typeof PRIORITY_TIERS)[number];
export const DEFAULT_PRIORITY_TIER: PriorityTier = "normal";

export const isPriorityTier = (value: unknown): value is PriorityTier =>
  (PRIORITY_TIERS as readonly unknown[]).includes(value);

/** One key's own overrides of the deployment's per-minute budgets, caps and usage budgets. */
export type KeyLimits = Partial<OperationLimits & HoldingCaps & UsageBudgets>;
