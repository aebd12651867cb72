import { ApiError, MODEL_IDS } from "@chorus/contracts";
import type { StatusStore, StoredStatus } from "@chorus/platform/scheduler";
import type { Request, Response } from "express";
import { logHttp, requestLogger } from "../middleware/request-context.js";
import { MAX_WAIT_SECONDS } from "../routes/prefer-wait.js";
import { finalOrLatest } from "../routes/wait-for-final.js";
import type { FinalStatusWaits } from "../services/final-status-waits.js";
import type { TextJobs } from "../services/text-jobs.service.js";

/** What the /v1 text doors (chat completions, responses) share: the body's model, waiting, leaving. */

/** The body's `model`, which admission checks as POST /api/text/{model} checks its path. */
export function modelNamedIn(body: unknown): string {
  const model = (body as { model?: unknown } | null)?.model;
  if (typeof model !== "string")
    throw ApiError.invalidParameter("model", "string", "model is required: one of " + MODEL_IDS.join(", "));
  return model;
}

/**
 * A client that leaves before its answer is whole cancels the job (when it is still processing). An
 * answer ended here (whole, or with an error event) is not left: the client may close as it reads it.
 */
export function cancelWhenClientLeaves(req: Request, res: Response, jobs: TextJobs, id: string): void {
  const cancel = () => {
    if (res.writableEnded) return;
    jobs.cancel(id).then(
      (cancelled) => cancelled && logHttp(req, "chat completion cancelled: the client left", { jobId: id }),
      (error: unknown) =>
        requestLogger(req).warn("could not cancel after the client left", { jobId: id, error: String(error) }),
    );
  };
  // It may have left while the job was being submitted.
  if (res.closed) cancel();
  else res.once("close", cancel);
}

/** Waits (in Prefer: wait's steps, one final-record notice each) until the record is final or the client has gone. */
export async function finalRecord(
  deps: { statuses: StatusStore; waits: FinalStatusWaits },
  id: string,
  res: Response,
): Promise<StoredStatus | null> {
  for (;;) {
    const stored = await finalOrLatest(deps.statuses, deps.waits, id, MAX_WAIT_SECONDS, res);
    if (!stored || stored.record.status !== "processing" || res.closed) return stored;
  }
}
