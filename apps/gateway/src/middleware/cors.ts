import cors from "cors";
import type { RequestHandler } from "express";

/** Request headers a browser client may send: the API's own, and Last-Event-ID for a resumed stream. */
const ALLOWED_HEADERS = ["Authorization", "Content-Type", "Idempotency-Key", "Prefer", "Last-Event-ID", "Accept"];

/**
 * Headers the OpenAI SDKs send from a browser (`dangerouslyAllowBrowser`): their `X-Stainless-*`
 * telemetry, whose names grow with each release (so by prefix), OpenAI's account headers, and the
 * User-Agent it sets (which some browsers let a script send).
 */
const SDK_HEADERS = /^(x-stainless-[a-z0-9-]+|openai-organization|openai-project|openai-beta|user-agent)$/;

/** The headers a preflight asks for that may be sent: the API's own, and the SDKs'. */
function allowedHeadersOf(requested: string | undefined): string[] {
  const sdk = (requested ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => SDK_HEADERS.test(name));
  return [...ALLOWED_HEADERS, ...sdk];
}

/** Response headers the gateway sends that a browser client may read (Content-Type is always readable). */
const EXPOSED_HEADERS = [
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "Retry-After",
  "Preference-Applied",
  "Content-Type",
  "X-Request-Id",
  "X-Audio-Duration",
  "X-Sample-Rate",
  "X-Should-Retry",
  "X-Budget-Tokens-Remaining",
  "X-Budget-Audio-Seconds-Remaining",
];

/** A browser may cache a preflight answer this long (seconds). */
const PREFLIGHT_MAX_AGE = 600;

/** CORS_ORIGINS: a comma list of exact origins, or `*`. Empty or unset: no CORS at all. */
export function parseCorsOrigins(setting: string | undefined): string[] {
  return (setting ?? "")
    .split(",")
    .map((origin) => origin.trim())
    .filter((origin) => origin !== "");
}

/**
 * Null when no origin is configured: then no layer is added and no CORS header is ever sent.
 * A preflight (OPTIONS) is answered 204 here, before authentication and every rate limiter, so it
 * needs no key and costs no budget; an origin not in the list gets no Access-Control-Allow-Origin.
 */
export function corsPolicy(origins: string[]): RequestHandler | null {
  if (origins.length === 0) return null;
  const options = {
    origin: origins.includes("*") ? "*" : origins,
    methods: ["GET", "HEAD", "POST", "DELETE"],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE,
  };
  return cors((req, callback) =>
    callback(null, { ...options, allowedHeaders: allowedHeadersOf(req.headers["access-control-request-headers"]) }),
  ) as RequestHandler;
}
