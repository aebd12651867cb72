import { ApiError } from "@chorus/contracts";
import { type ApiKeyLookup, type ApiKeyRecord } from "@chorus/platform/api-keys";
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

function failureMessage(token: string | null, key: ApiKeyRecord | null): string {
  if (token === null) return "missing or malformed Authorization header; send 'Authorization: Bearer <API key>'";
  return key?.revoked ? "the API key has been revoked" : "the API key is not valid";
}

/**
 * Bearer-key authentication. Failed attempts count against a per-address budget (`onFailure`, a
 * rate limiter): past it the client gets 429 instead of 401, so keys cannot be guessed at speed.
 */
export function authenticate(apiKeys: ApiKeyLookup, onFailure: RequestHandler): RequestHandler {
  const admit = (req: Request, res: Response, next: NextFunction, token: string | null, key: ApiKeyRecord | null) => {
    if (key && !key.revoked) {
      (req as AuthenticatedRequest)[KEY_PROPERTY] = key;
      next();
      return;
    }
    // The failure limiter calls its callback only while under budget; over it, it answers 429 itself.
    void onFailure(req, res, (error?: unknown) => {
      next(error ?? new ApiError("UNAUTHORIZED", failureMessage(token, key)));
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
