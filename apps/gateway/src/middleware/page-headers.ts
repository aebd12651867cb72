import type { Response } from "express";

/**
 * The headers of a page for people (the reference page, the playground) and of its files: the
 * page's Content-Security-Policy, no MIME sniffing, no referrer sent on.
 */
export function pageHeaders(contentSecurityPolicy: string): (res: Response) => void {
  return (res) => {
    res.setHeader("Content-Security-Policy", contentSecurityPolicy);
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Referrer-Policy", "no-referrer");
  };
}
