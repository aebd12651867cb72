import { ApiError } from "../errors.js";
import { compileQueryValidator } from "../validation/validator.js";

/** The longest range a usage report covers: as long as a key's usage days are kept. */
export const USAGE_MAX_DAYS = 400;
/** Days reported when `from` is not given: these, ending with `to`. */
export const USAGE_DEFAULT_DAYS = 30;
export const USAGE_GROUPINGS = ["day", "model"] as const;
export type UsageGrouping = (typeof USAGE_GROUPINGS)[number];

const DATE = { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$" } as const;

/** The query of GET /api/v2/usage (and of GET /admin/usage, with its `key`). */
export const usageQuerySchema = {
  type: "object",
  properties: {
    from: { ...DATE, description: `first UTC day (YYYY-MM-DD); default: ${USAGE_DEFAULT_DAYS} days ending with to` },
    to: { ...DATE, description: "last UTC day (YYYY-MM-DD), included; default: today" },
    groupBy: { type: "string", enum: USAGE_GROUPINGS, default: "day", description: "one bucket per day or per model" },
  },
  additionalProperties: false,
} as const;

export const adminUsageQuerySchema = {
  ...usageQuerySchema,
  properties: {
    ...usageQuerySchema.properties,
    key: { type: "string", minLength: 1, maxLength: 200, description: "only this API key (its id)" },
  },
} as const;

/** A checked usage query: its range in whole UTC days, `from` <= `to`, at most USAGE_MAX_DAYS. */
export interface UsageQuery {
  from: string;
  to: string;
  groupBy: UsageGrouping;
}

const DAY_MS = 24 * 3600 * 1000;
const validateUsage = compileQueryValidator<Partial<UsageQuery>>(usageQuerySchema);
const validateAdminUsage = compileQueryValidator<Partial<UsageQuery> & { key?: string }>(adminUsageQuerySchema);

/** Ms of a `YYYY-MM-DD` that is a real day (2026-02-30 is not), else a 400 naming `field`. */
function dayMs(field: "from" | "to", value: string): number {
  const ms = Date.parse(`${value}T00:00:00Z`);
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value)
    throw ApiError.invalidParameter(field, "string", `${field} must be a UTC day YYYY-MM-DD that exists`);
  return ms;
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The range checked, defaults filled (to: the day of `now`; from: USAGE_DEFAULT_DAYS ending with to). */
function checkedRange(query: Partial<UsageQuery>, now: number): UsageQuery {
  const to = query.to ?? dayOf(now);
  const toMs = dayMs("to", to);
  const from = query.from ?? dayOf(toMs - (USAGE_DEFAULT_DAYS - 1) * DAY_MS);
  const fromMs = dayMs("from", from);
  if (fromMs > toMs) throw ApiError.invalidParameter("from", "string", "from must not be after to");
  if ((toMs - fromMs) / DAY_MS + 1 > USAGE_MAX_DAYS)
    throw ApiError.invalidParameter("from", "string", `the range from..to must span at most ${USAGE_MAX_DAYS} days`);
  return { from, to, groupBy: query.groupBy ?? "day" };
}

/** GET /api/v2/usage's query; a bad or unknown parameter, a reversed or too long range: 400 naming it. */
export function validateUsageQuery(query: Record<string, unknown>, now = Date.now()): UsageQuery {
  return checkedRange(validateUsage({ ...query }), now);
}

/** GET /admin/usage's query: the same, and an optional `key`. */
export function validateAdminUsageQuery(
  query: Record<string, unknown>,
  now = Date.now(),
): UsageQuery & { key?: string } {
  const checked = validateAdminUsage({ ...query });
  return { ...checkedRange(checked, now), ...(checked.key !== undefined && { key: checked.key }) };
}

/** Every UTC day from `from` to `to`, both included. */
export function daysOfRange({ from, to }: Pick<UsageQuery, "from" | "to">): string[] {
  const days: string[] = [];
  for (let ms = Date.parse(`${from}T00:00:00Z`); dayOf(ms) <= to; ms += DAY_MS) days.push(dayOf(ms));
  return days;
}
