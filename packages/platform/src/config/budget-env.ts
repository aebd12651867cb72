import { MAX_USAGE_BUDGET, type UsageBudgets } from "@chorus/contracts";
import type { ConfigOf, EnvSchema } from "./load-config.js";

const budget = (description: string) =>
  ({ type: "integer", minimum: 1, maximum: MAX_USAGE_BUDGET, description }) as const;

/**
 * The deployment's usage budgets, each API key's unless its own `limits` set another: unset, no cap.
 * Read by the gateway, which holds and refuses at admission (docs/usage.md).
 */
export const BUDGET_ENV = {
  BUDGET_TOKENS_DAY: budget(
    "tokens (prompt + completion) one API key may use per UTC day; unset: no cap (a key's own `tokens_day` overrides it)",
  ),
  BUDGET_TOKENS_MONTH: budget(
    "tokens (prompt + completion) one API key may use per UTC month; unset: no cap (a key's own `tokens_month` overrides it)",
  ),
  BUDGET_AUDIO_SECONDS_DAY: budget(
    "seconds of synthesized speech one API key may use per UTC day; unset: no cap (a key's own `audio_seconds_day` overrides it)",
  ),
  BUDGET_AUDIO_SECONDS_MONTH: budget(
    "seconds of synthesized speech one API key may use per UTC month; unset: no cap (a key's own `audio_seconds_month` overrides it)",
  ),
} as const satisfies EnvSchema;

/** The deployment's budgets from its configuration (absent: no cap). */
export function budgetDefaults(config: ConfigOf<typeof BUDGET_ENV>): Partial<UsageBudgets> {
  const defaults: Partial<UsageBudgets> = {};
  if (config.BUDGET_TOKENS_DAY !== undefined) defaults.tokens_day = config.BUDGET_TOKENS_DAY;
  if (config.BUDGET_TOKENS_MONTH !== undefined) defaults.tokens_month = config.BUDGET_TOKENS_MONTH;
  if (config.BUDGET_AUDIO_SECONDS_DAY !== undefined) defaults.audio_seconds_day = config.BUDGET_AUDIO_SECONDS_DAY;
  if (config.BUDGET_AUDIO_SECONDS_MONTH !== undefined) defaults.audio_seconds_month = config.BUDGET_AUDIO_SECONDS_MONTH;
  return defaults;
}
