/**
 * How soon a job whose worker died runs again elsewhere. BullMQ's lock on a running job lapses
 * `lockDuration` after its last renewal; a stalled check (one per `stalledInterval` across the fleet)
 * marks the running jobs and, at the next check, puts back in the queue those whose lock is gone.
 * Renewing four times per lock leaves a worker three missed renewals (a Redis blip, a busy event
 * loop) before its job could be taken from it while it still runs.
 */
export interface TakeOverTiming {
  lockDuration: number;
  lockRenewTime: number;
  stalledInterval: number;
}

/** BullMQ's lock and stalled-check options for a lock of `lockMs` (JOB_LOCK_MS). */
export function takeOverTiming(lockMs: number): TakeOverTiming {
  return { lockDuration: lockMs, lockRenewTime: lockMs / 4, stalledInterval: lockMs / 4 };
}

/**
 * The longest from a worker's death to its job back in the queue: the lock lapses at most
 * `lockDuration` after the death (it was renewed at most then), and the check that sees it follows
 * within one `stalledInterval` (the one before it marked the job). A free worker takes it at once.
 */
export function latestRequeueMs(timing: TakeOverTiming): number {
  return timing.lockDuration + timing.stalledInterval;
}
