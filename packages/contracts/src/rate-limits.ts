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
 * waits, webhook deliveries queued and not yet ended.
 */
export interface HoldingCaps {
  inflight: number;
  streams: number;
  webhooks: number;
}

export const CAPPED_HOLDINGS = ["inflight", "streams", "webhooks"] as const satisfies readonly (keyof HoldingCaps)[];

/** One key's own overrides of the deployment's per-minute budgets and caps. */
export type KeyLimits = Partial<OperationLimits & HoldingCaps>;
