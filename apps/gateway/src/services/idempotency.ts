import { createHash, randomUUID } from "node:crypto";
import { ApiError } from "@chorus/contracts";
import type { RedisKeys, RedisClient } from "@chorus/platform/redis";

export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

export type Claim = { fresh: true; requestId: string } | { fresh: false; requestId: string };

/** Validates the header: absent is fine, malformed is a 400 like any other parameter. */
export function idempotencyKeyOf(header: string | string[] | undefined): string | null {
  if (header === undefined) return null;
  if (typeof header === "string" && IDEMPOTENCY_KEY_PATTERN.test(header)) return header;
  throw ApiError.invalidParameter(
    "Idempotency-Key",
    "string",
    "the Idempotency-Key header must be 1-128 characters of A-Z a-z 0-9 . _ : -",
  );
}

/**
 * Idempotency-Key on POST /api/text: the first request with a key claims it (SET NX, one round
 * trip) with a hash of what it asked; a retry with the same body gets the same request id back and
 * queues nothing; the same key with a different body is 409. Keys are per API key and kept
 * `ttlSeconds`.
 */
export class IdempotencyKeys {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly ttlSeconds: number,
  ) {}

  async claim(
    apiKeyId: string,
    idempotencyKey: string,
    request: unknown,
    ttlSeconds = this.ttlSeconds,
  ): Promise<Claim> {
    const hash = createHash("sha256").update(JSON.stringify(request)).digest("base64url");
    const requestId = randomUUID();
    const key = this.keys.idempotency(apiKeyId, idempotencyKey);
    const previous = await this.redis.set(key, `${hash}:${requestId}`, "EX", ttlSeconds, "NX", "GET");
    if (previous === null) return { fresh: true, requestId };
    const [previousHash, previousId] = previous.split(":");
    if (previousHash !== hash || !previousId) {
      throw new ApiError("CONFLICT", "this Idempotency-Key was already used with a different request body");
    }
    return { fresh: false, requestId: previousId };
  }

  /** Frees a key whose first request failed, so that a retry does the work instead of waiting for it. */
  async release(apiKeyId: string, idempotencyKey: string): Promise<void> {
    await this.redis.del(this.keys.idempotency(apiKeyId, idempotencyKey));
  }
}
