import type { RedisClient } from "../redis/connection.js";
import { defineLuaScripts } from "../redis/lua-scripts.js";
import type { RedisKeys } from "../redis/redis-keys.js";
import { hashSecret, newSecret } from "./api-key-secret.js";

/** A key's new secret (shown this once), and until when (ms) the one it replaced is accepted (null: not at all). */
export interface RotatedSecret {
  secret: string;
  previousValidUntil: number | null;
}

interface Rotation {
  id: string;
  recordKey: string;
  secretHash: string;
  previousSecretHash: string | null;
  overlapMs: number;
  now: number;
}

/**
 * Moves the key's record to a new secret's hash in one script (rotate-api-key-secret-4.lua). The
 * script is defined on first use, as webhook-secrets.ts says why.
 */
export async function rotateKeySecret(
  redis: RedisClient,
  keys: RedisKeys,
  { id, recordKey, secretHash, previousSecretHash, overlapMs, now }: Rotation,
): Promise<RotatedSecret | "revoked" | "changed"> {
  const { rotate } = defineLuaScripts(redis, new URL("../lua/", import.meta.url), {
    rotate: "rotate-api-key-secret-4.lua",
  });
  const secret = newSecret();
  const newHash = hashSecret(secret);
  const previousValidUntil = overlapMs > 0 ? now + overlapMs : null;
  const previousKey = previousSecretHash ? keys.apiKeyBySecretHash(previousSecretHash) : recordKey;
  const outcome = Number(
    await rotate(
      keys.apiKeyIndex(),
      recordKey,
      keys.apiKeyBySecretHash(newHash),
      previousKey,
      id,
      secretHash,
      newHash,
      previousValidUntil ?? 0,
    ),
  );
  if (outcome === -1) return "revoked";
  if (outcome === 0) return "changed";
  return { secret, previousValidUntil };
}
