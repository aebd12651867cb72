import type { Logger } from "@chorus/platform/logger";
import type { RoutingStore } from "./routing-store.js";

/** Why a hand-over copy was stopped: the claim names another copy now. */
class ClaimLost extends Error {}

export interface LeaseContext {
  store: RoutingStore;
  logger: Logger;
  requestId: string;
  workerId: string;
  /** How often the lease is renewed (a third of its life or less). */
  renewMs: number;
}

/**
 * Runs a hand-over copy while renewing its lease, which tells the job's shared copy that it still runs.
 * A renewal Redis fails is only logged (the lease is set again once Redis answers, before the
 * watcher's grace ends). A renewal that finds the claim naming another copy (taken over while this
 * worker was cut off) stops this run: it returns `undefined` and writes nothing, so one copy goes on.
 */
export async function runLeased<T>(
  context: LeaseContext,
  run: (signal: AbortSignal) => Promise<T>,
  signal?: AbortSignal,
): Promise<T | undefined> {
  const { store, logger, requestId, workerId } = context;
  const lost = new AbortController();
  const renew = () =>
    store.renewLease(requestId, workerId).then(
      (ours) => {
        if (!ours && !lost.signal.aborted) lost.abort(new ClaimLost("another worker took the job over"));
      },
      (error: unknown) =>
        logger.warn("could not renew a routed job's lease", { jobId: requestId, error: String(error) }),
    );
  const timer = setInterval(() => void renew(), context.renewMs);
  try {
    return await run(signal ? AbortSignal.any([signal, lost.signal]) : lost.signal);
  } catch (error) {
    if (!lost.signal.aborted) throw error;
    logger.warn("stopped: another worker took this routed job over", { jobId: requestId });
    return undefined;
  } finally {
    clearInterval(timer);
  }
}
