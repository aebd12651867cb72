import { ApiError } from "@chorus/contracts";
import { type ApiKeyLookup, type ApiKeyRecord, type KeyLastUsed } from "@chorus/platform/api-keys";
import { bearerToken } from "@chorus/platform/auth";
import type { NextFunction, Request, RequestHandler, Response } from "express";

const KEY_PROPERTY = Symbol("apiKey");
type AuthenticatedRequest = Request & { [KEY_PROPERTY]?: ApiKeyRecord };

/** The key `authenticate` attached; only call after it ran. */
export function authenticatedKey(req: Request): ApiKeyRecord {
  const key = (req as AuthenticatedRequest)[KEY_PROPERTY];
  if (!key) throw new Error("authenticatedKey() used on a route without authenticate()");
  return key;
}

/** Why a key found is refused at `now`, or null when it is accepted. */
function refusal(key: ApiKeyRecord, now: number): { message: string; reason: string } | null {
  if (key.revoked) return { message: "the API key has been revoked", reason: "revoked" };
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now)
    return { message: `the API key expired at ${key.expiresAt}`, reason: "expired" };
  if (key.replacedSecretUntil !== null && key.replacedSecretUntil <= now)
    return { message: "the API key's secret was replaced by a rotation; use the new one", reason: "rotated" };
  return null;
}

function failure(token: string | null, key: ApiKeyRecord | null, now: number): ApiError {
  if (token === null)
    return new ApiError(
      "UNAUTHORIZED",
      "missing or malformed Authorization header; send 'Authorization: Bearer <API key>'",
    );
  const refused = key && refusal(key, now);
  if (!refused) return new ApiError("UNAUTHORIZED", "the API key is not valid");
  return new ApiError("UNAUTHORIZED", refused.message, { reason: refused.reason });
}

/**
 * Bearer-key authentication. Failed attempts count against a per-address budget (`onFailure`, a
 * rate limiter): past it the client gets 429 instead of 401, so keys cannot be guessed at speed.
 * Expiry is checked on each request, so a cached key never outlives it. `lastUsed` hears of each
 * key admitted (it writes off the request path).
 */
export function authenticate(
  apiKeys: ApiKeyLookup,
  onFailure: RequestHandler,
  lastUsed?: Pick<KeyLastUsed, "note">,
): RequestHandler {
  const admit = (req: Request, res: Response, next: NextFunction, token: string | null, key: ApiKeyRecord | null) => {
    const now = Date.now();
    if (key && !refusal(key, now)) {
      (req as AuthenticatedRequest)[KEY_PROPERTY] = key;
      lastUsed?.note(key.id, now);
      next();
      return;
    }
    // The failure limiter calls its callback only while under budget; over it, it answers 429 itself.
    void onFailure(req, res, (error?: unknown) => {
      next(error ?? failure(token, key, now));
    });
  };
  // Not an async function: a cached key (most requests) is admitted in the same tick, no promise.
  return (req: Request, res: Response, next: NextFunction) => {
    const token = bearerToken(req.headers.authorization);
    const found = token === null ? null : apiKeys.findBySecret(token);
    if (found instanceof Promise) found.then((key) => admit(req, res, next, token, key), next);
    else admit(req, res, next, token, found);
  };
}
