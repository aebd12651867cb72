/**
 * The steps of the status-steps rows, each adding one part of the gateway's status poll to the
 * one before; the three limiter steps each add a different limiter to `context`:
 * - read: Express, the gateway's status READ script, the answer written as the gateway writes it
 * - auth: + the Bearer API-key check (cached key) and the ownership check
 * - context: + request id and HTTP metrics (the gateway's request context)
 * - limit-memory: + express-rate-limit counting in its own in-process store (no Redis)
 * - limit-script: + rate-limit-redis' counting script, one more Redis command per poll, without express-rate-limit
 * - gateway-limiter: + the gateway's status limiter (express-rate-limit + rate-limit-redis)
 * - count-in-read: + the limit counted by a minimal script sent with the READ script in one round trip
 *   (rate-limit-redis' rule, same headers), without either library: not what the gateway does, but
 *   what it would cost if the architecture allowed it (bench/src/baselines/count-in-read.ts)
 */
export const STATUS_STEPS = [
  "read",
  "auth",
  "context",
  "limit-memory",
  "limit-script",
  "gateway-limiter",
  "count-in-read",
] as const;
export type StatusStep = (typeof STATUS_STEPS)[number];

export const STATUS_STEP_LABELS: Record<StatusStep, string> = {
  read: "Express + status READ script + direct JSON answer",
  auth: "+ API-key check (cached) and ownership check",
  context: "+ request id and HTTP metrics",
  "limit-memory": "context + express-rate-limit, in-process store (no Redis)",
  "limit-script": "context + rate-limit-redis script as a 2nd command (no express-rate-limit)",
  "gateway-limiter": "context + express-rate-limit + rate-limit-redis (the gateway's limiter)",
  "count-in-read": "context + limit counted by a script beside the READ script (no library; not in the product)",
};
