import { createHash, timingSafeEqual } from "node:crypto";

const digest = (value: string) => createHash("sha256").update(value).digest();

/**
 * Whether a scrape may read /metrics: always when no token is configured, otherwise only with
 * `Authorization: Bearer <token>`. Digests are compared, so timing reveals neither the token's
 * length nor how much of it matched.
 */
export function metricsRequestAllowed(authorization: string | undefined, token: string | undefined): boolean {
  if (!token) return true;
  const presented = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
  if (presented === undefined) return false;
  return timingSafeEqual(digest(presented), digest(token));
}
