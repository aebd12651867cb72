import { ApiError, REQUEST_LIMITS, type GenerationRequest } from "@chorus/contracts";
import type { Response } from "express";

/** The longest wait a client may ask for: beyond it the request is answered as for 60. */
export const MAX_WAIT_SECONDS = 60;

/**
 * The `wait` preference of an RFC 7240 `Prefer` header, in seconds (capped at MAX_WAIT_SECONDS), or
 * null when there is none. Preferences are a comma-separated list whose parameters follow `;`;
 * an unknown or malformed preference is ignored, as the RFC asks.
 */
export function preferredWaitSeconds(header: string | string[] | undefined): number | null {
  for (const preference of preferencesOf(header)) {
    const match = /^\s*wait\s*=\s*(?:(\d+)|"(\d+)")\s*(;|$)/i.exec(preference);
    if (match) return Math.min(Number(match[1] ?? match[2]), MAX_WAIT_SECONDS);
  }
  return null;
}

/** The preferences of `Prefer` header(s), one string each (name, `=value`, `;` parameters). */
export function preferencesOf(header: string | string[] | undefined): string[] {
  const values = Array.isArray(header) ? header : header === undefined ? [] : [header];
  return values.flatMap((value) => value.split(","));
}

/** Says the wait was honoured, and that the answer depends on the header (for caches). */
export function markWaitApplied(res: Response, seconds: number): void {
  res.setHeader("Preference-Applied", `wait=${seconds}`);
  res.vary("Prefer");
}

/**
 * The `wait-queue` preference (Chorus's own), in ms: the longest the request may wait for a worker
 * (as the native body's `maxQueueMs`), or null when there is none. Unlike an unknown preference, a
 * `wait-queue` outside its bounds is refused (400) rather than ignored: a client that asks to fail
 * fast must not be made to wait instead.
 */
export function preferredQueueDeadlineMs(header: string | string[] | undefined): number | null {
  for (const preference of preferencesOf(header)) {
    const match = /^\s*wait-queue\s*=\s*"?([^";]*)"?\s*(;|$)/i.exec(preference);
    if (!match) continue;
    const ms = Number(match[1]) * 1000;
    const { min, max } = REQUEST_LIMITS.queueDeadlineMs;
    if (!/^\d+(\.\d+)?$/.test(match[1]!.trim()) || ms < min || ms > max)
      throw ApiError.invalidParameter(
        "Prefer: wait-queue",
        "number",
        `Prefer: wait-queue must be a number of seconds from ${min / 1000} to ${max / 1000}`,
      );
    return Math.round(ms);
  }
  return null;
}

/** Gives the request the header's queue deadline, unless its body set `maxQueueMs` (which wins). */
export function applyQueueDeadline(request: GenerationRequest, prefer: string | string[] | undefined): void {
  const fromHeader = preferredQueueDeadlineMs(prefer);
  if (request.maxQueueMs === undefined && fromHeader !== null) request.maxQueueMs = fromHeader;
}
