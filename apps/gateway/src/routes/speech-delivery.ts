import type { Request, Response } from "express";
import { preferencesOf } from "./prefer-wait.js";

const WHOLE = /^\s*stream\s*=\s*(?:false|"false")\s*(;|$)/i;

/**
 * Whether speech goes out as it is made (chunked, the default) or whole, with Content-Length: whole
 * when the client prefers it (`Prefer: stream=false`, RFC 7240 style, answered with
 * `Preference-Applied`), and for HTTP/1.0, which has no chunked encoding: there a stream cut short
 * by a failure would end like a whole one, and the client could not tell.
 */
export function streamsSpeech(req: Request, res: Response): boolean {
  if (preferencesOf(req.headers.prefer).some((preference) => WHOLE.test(preference))) {
    res.setHeader("Preference-Applied", "stream=false");
    res.vary("Prefer");
    return false;
  }
  res.vary("Prefer");
  return req.httpVersionMajor > 1 || (req.httpVersionMajor === 1 && req.httpVersionMinor >= 1);
}
