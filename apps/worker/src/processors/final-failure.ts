import { UnrecoverableError, type Job } from "bullmq";

/** A job that will not be tried again has failed for good: record the reason for the client. */
export function isFinalFailure(job: Job, error: Error): boolean {
  return (
    error instanceof UnrecoverableError ||
    error.name === "UnrecoverableError" ||
    job.attemptsMade >= (job.opts.attempts ?? 1)
  );
}
