import { bearerToken, sameSecret } from "../auth/secret-token.js";

/**
 * Whether a scrape may read /metrics: always when no token is configured, otherwise only with
 * `Authorization: Bearer <token>`.
 */
export function metricsRequestAllowed(authorization: string | undefined, token: string | undefined): boolean {
  if (!token) return true;
  const presented = bearerToken(authorization);
  return presented !== null && sameSecret(presented, token);
}
