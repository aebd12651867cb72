import { createHash, timingSafeEqual } from "node:crypto";

const digest = (value: string) => createHash("sha256").update(value).digest();

/** The token of `Authorization: Bearer <token>`, or null when the header is missing or of another form. */
export function bearerToken(authorization: string | undefined): string | null {
  return /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? "")?.[1] ?? null;
}

/**
 * Whether a presented secret is the configured one. Digests of equal length are compared in
 * constant time, so timing reveals neither the secret's length nor how much of it matched.
 */
export function sameSecret(presented: string, secret: string): boolean {
  return timingSafeEqual(digest(presented), digest(secret));
}
