import { USAGE_BUDGETS, type HoldingCaps, type OperationLimits, type UsageBudgets } from "@chorus/contracts";
import type { ApiKeyRecord } from "@chorus/platform/api-keys";

/** Every limit a key is held to: per-minute budgets and holding caps (each with a value), and its usage budgets. */
export type EffectiveLimits = OperationLimits & HoldingCaps & Partial<UsageBudgets>;

/**
 * The one place a key's limits are read: its own, else the deployment's. The rate limiters, stream
 * places and the in-flight cap all ask here, so a key's limits changed in the store (keys update)
 * reach every check together, once the key cache has let go of the old record.
 */
export class LimitPolicy {
  constructor(
    private readonly defaults: OperationLimits & HoldingCaps,
    /** The deployment's usage budgets (BUDGET_*): absent, no cap. */
    private readonly budgetDefaults: Partial<UsageBudgets> = {},
  ) {}

  perMinute(key: ApiKeyRecord, operation: keyof OperationLimits): number {
    return key.limits[operation] ?? this.defaults[operation];
  }

  /** Text requests the key may have waiting or running at once. */
  inFlight(key: ApiKeyRecord): number {
    return key.limits.inflight ?? this.defaults.inflight;
  }

  /** Webhook deliveries the key may have queued and not yet ended before its submits with webhook are refused. */
  webhooks(key: ApiKeyRecord): number {
    return key.limits.webhooks ?? this.defaults.webhooks;
  }

  /** Batches (OpenAI's Batch API) the key may have in progress (not yet final) at once. */
  batches(key: ApiKeyRecord): number {
    return key.limits.batches ?? this.defaults.batches;
  }

  /** Status streams and waits the key may hold open at once, over all gateways. */
  streams(key: ApiKeyRecord): number {
    return key.limits.streams ?? this.defaults.streams;
  }

  /** The usage budgets that apply to the key: each its own, else the deployment's; absent, no cap. */
  usageBudgets(key: ApiKeyRecord): Partial<UsageBudgets> {
    const budgets: Partial<UsageBudgets> = { ...this.budgetDefaults };
    for (const name of USAGE_BUDGETS) if (key.limits[name] !== undefined) budgets[name] = key.limits[name];
    return budgets;
  }

  of(key: ApiKeyRecord): EffectiveLimits {
    return { ...this.defaults, ...this.budgetDefaults, ...key.limits };
  }
}
