import { createHash, randomBytes } from "node:crypto";

/** Keys carry a recognisable prefix (for secret scanners) and 256 random bits. */
export const SECRET_PREFIX = "ck_";

export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString("base64url");
}
