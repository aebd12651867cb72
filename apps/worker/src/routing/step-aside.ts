import type { GenerateTextJob } from "@chorus/contracts";
import type { Logger } from "@chorus/platform/logger";
import { DelayedError, type Job } from "bullmq";

/** A failed step-aside is tried again after this pause, longer each time, up to the longest. */
const FIRST_PAUSE_MS = 250;
const LONGEST_PAUSE_MS = 2000;

/**
 * BullMQ's codes for a job this worker no longer holds: gone (-1), its lock gone (-2), not active (-3),
 * another worker's lock (-6). Its stalled check has put it back in the queue, or another worker has it.
 */
const NOT_HELD = new Set([-1, -2, -3, -6]);

function notHeldAnyMore(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "number" && NOT_HELD.has(code);
}

/**
 * The shared copy of a routed job steps aside for `ms`: delayed, no attempt spent. A Redis error
 * (READONLY in a failover, OOM, a lost connection) is tried again until Redis takes the move, for as
 * long as this worker holds the job: letting the error through would spend an attempt, and a job's
 * last attempt would write `error` to a record another worker may still be generating. The job's lock
 * is renewed meanwhile; should it lapse, BullMQ's stalled check puts the job back and this stops.
 */
export async function stepAside(
  job: Job<GenerateTextJob>,
  token: string | undefined,
  ms: number,
  context: { logger: Logger; signal?: AbortSignal | undefined },
): Promise<never> {
  for (let tries = 1; ; tries++) {
    try {
      await job.moveToDelayed(Date.now() + ms, token);
      break;
    } catch (error) {
      if (notHeldAnyMore(error) || context.signal?.aborted) {
        context.logger.warn("stepping aside: the job is no longer this worker's", {
          jobId: job.id,
          error: String(error),
        });
        break;
      }
      context.logger.warn("stepping aside failed; trying again", { jobId: job.id, tries, error: String(error) });
      await new Promise((resolve) => setTimeout(resolve, Math.min(FIRST_PAUSE_MS * tries, LONGEST_PAUSE_MS)));
    }
  }
  // Tells BullMQ the processor moved the job itself (or that it is no longer this worker's): it does nothing more.
  throw new DelayedError();
}
