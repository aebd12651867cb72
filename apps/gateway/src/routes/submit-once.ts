import { ApiError } from "@chorus/contracts";
import type { Request } from "express";
import { idempotencyKeyOf, type IdempotencyKeys } from "../services/idempotency.js";
import type { QueueDepth } from "../services/queue-depth.js";
import type { TextJobs, TextSubmission } from "../services/text-jobs.service.js";

/** What a text submit needs, from POST /api/text/{model} or POST /v1/chat/completions alike. */
export interface SubmitDeps {
  jobs: TextJobs;
  idempotency: IdempotencyKeys;
  queueDepth: QueueDepth;
  /** Text jobs queued, waiting for a retry or running beyond which new submissions get 503 (0: no limit). */
  maxQueueDepth: number;
}

function refuseWhenQueueFull(deps: SubmitDeps): void {
  const backlog = deps.queueDepth.current;
  if (deps.maxQueueDepth > 0 && backlog !== null && backlog >= deps.maxQueueDepth) {
    throw new ApiError(
      "SERVICE_UNAVAILABLE",
      `the service is at capacity (${backlog} requests queued or running); retry later`,
      undefined,
      5,
    );
  }
}

/**
 * Submits, unless an Idempotency-Key names a request already accepted: then that request's id is
 * returned as `replayed` and nothing is queued.
 */
export async function submitOnce(
  req: Request,
  deps: SubmitDeps,
  submission: TextSubmission,
): Promise<{ id: string; replayed: boolean }> {
  const idempotencyKey = idempotencyKeyOf(req.headers["idempotency-key"]);
  if (!idempotencyKey) {
    refuseWhenQueueFull(deps);
    return { id: await deps.jobs.submit(submission), replayed: false };
  }
  const { keyId, model, request, clientSampling } = submission;
  const claim = await deps.idempotency.claim(keyId, idempotencyKey, { model, request, clientSampling });
  if (!claim.fresh) return { id: claim.requestId, replayed: true };
  try {
    refuseWhenQueueFull(deps);
    return { id: await deps.jobs.submit({ ...submission, requestId: claim.requestId }), replayed: false };
  } catch (error) {
    // Refused or not stored: the key must not keep pointing at a request that does not exist.
    // Left open: a duplicate arriving between claim and release gets that id, and an enqueue that
    // reached Redis but timed out here can be enqueued again by the retry (issue 13).
    await deps.idempotency.release(keyId, idempotencyKey).catch(() => undefined);
    throw error;
  }
}
