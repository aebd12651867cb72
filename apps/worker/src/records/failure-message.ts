import { CANCELLED_ERROR } from "@chorus/contracts";

/** A failed job's record `error`: a cancellation is just "cancelled"; anything else says generation failed. */
export function failureMessage(reason: string): string {
  if (reason === CANCELLED_ERROR) return CANCELLED_ERROR;
  const message = reason.length > 500 ? `${reason.slice(0, 500)}...` : reason;
  return `generation failed: ${message}`;
}
