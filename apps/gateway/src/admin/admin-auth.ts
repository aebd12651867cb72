import { ApiError } from "@chorus/contracts";
import { bearerToken, sameSecret } from "@chorus/platform/auth";
import type { NextFunction, Request, RequestHandler, Response } from "express";

/** The password of `Authorization: Basic base64(user:password)` (any user name), or null. */
function basicPassword(authorization: string | undefined): string | null {
  const encoded = /^Basic[ ]+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? "")?.[1];
  if (!encoded) return null;
  const decoded = Buffer.from(encoded, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon === -1 ? null : decoded.slice(colon + 1);
}

export interface AdminAuthOptions {
  /**
   * Also take the token as an HTTP Basic password, and ask a browser for it (WWW-Authenticate):
   * a browser cannot send a Bearer header for a page.
   */
  basic?: boolean;
}

const BASIC_CHALLENGE = 'Basic realm="Chorus admin", charset="UTF-8"';

/**
 * ADMIN_TOKEN authentication (Bearer, or Basic where allowed). Failures count against the same
 * per-address budget as failed API-key authentications (`onFailure`, a rate limiter): past it 429.
 */
export function authenticateAdmin(
  token: string,
  onFailure: RequestHandler,
  { basic = false }: AdminAuthOptions = {},
): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const { authorization } = req.headers;
    const presented = bearerToken(authorization) ?? (basic ? basicPassword(authorization) : null);
    if (presented !== null && sameSecret(presented, token)) return next();
    // The failure limiter calls its callback only while under budget; over it, it answers 429 itself.
    void onFailure(req, res, (error?: unknown) => {
      if (!error && basic) res.setHeader("WWW-Authenticate", BASIC_CHALLENGE);
      const how = basic
        ? "'Authorization: Bearer <ADMIN_TOKEN>' or the token as the Basic password"
        : "'Authorization: Bearer <ADMIN_TOKEN>'";
      next(
        error ??
          new ApiError(
            "UNAUTHORIZED",
            presented === null
              ? `missing or malformed Authorization header; send ${how}`
              : "the admin token is not valid",
          ),
      );
    });
  };
}
