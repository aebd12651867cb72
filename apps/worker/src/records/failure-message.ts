import { CANCELLED_ERROR, type FailureCode } from "@chorus/contracts";
import { UnrecoverableError } from "bullmq";

/** A failure whose kind the worker knows (its time limit, a request it cannot run): never retried. */
export class GenerationFailure extends UnrecoverableError {
  constructor(
    readonly code: FailureCode,
    message: string,
  ) {
    super(message);
  }
}

/** A failed job's record `error`: a cancellation is just "cancelled"; anything else says generation failed. */
export function failureMessage(reason: string): string {
  if (reason === CANCELLED_ERROR) return CANCELLED_ERROR;
  const message = reason.length > 500 ? `${reason.slice(0, 500)}...` : reason;
  return `generation failed: ${message}`;
}

/** What a job's last failure writes into its record: the message, and what kind of failure it is. */
export function failureOf(error: Error): { error: string; code: FailureCode } {
  if (error.message === CANCELLED_ERROR) return { error: CANCELLED_ERROR, code: "cancelled" };
  const code = error instanceof GenerationFailure ? error.code : "generation_failed";
  return { error: failureMessage(error.message), code };
}
