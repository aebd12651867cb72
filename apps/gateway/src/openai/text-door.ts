import { ApiError, MODEL_IDS, type ChatLimits, type CompletionIdentity, type StatusRecord } from "@chorus/contracts";
import type { StatusStore, StoredStatus } from "@chorus/platform/scheduler";
import type { Request, Response } from "express";
import type { Budgets } from "../admission/budgets.js";
import { OPENAI_FEATURE_FIELDS } from "../admission/engine-features.js";
import type { TextAdmission, TextRequest } from "../admission/text-admission.js";
import { logHttp, requestLogger } from "../middleware/request-context.js";
import { applyQueueDeadline, MAX_WAIT_SECONDS } from "../routes/prefer-wait.js";
import { sendJson } from "../routes/send-json.js";
import { finalOrLatest } from "../routes/wait-for-final.js";
import type { FinalStatusWaits } from "../services/final-status-waits.js";
import { idempotencyKeyOf } from "../services/idempotency.js";
import type { TextJobs } from "../services/text-jobs.service.js";
import type { ChatStreamDeps } from "./chat-stream.js";
import { recordFailure } from "./record-failure.js";

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

/** What a /v1 text door (chat, text completion, responses) needs: admission, the job's record, the stream. */
export interface TextDoorDeps extends ChatStreamDeps {
  admission: TextAdmission;
  budgets(req: Request, res: Response): Budgets;
  jobs: TextJobs;
  waits: FinalStatusWaits;
  limits: ChatLimits;
}

/**
 * A /v1 body as mapped onto the text job, with what the request's headers add (its queue deadline,
 * Idempotency-Key) and the /v1 names of the fields an engine may lack.
 */
export function withOpenAiHeaders<
  Mapped extends Omit<TextRequest, "idempotencyKey" | "streamReply" | "featureFields"> & { stream: boolean },
>(req: Request, mapped: Mapped): Mapped & TextRequest {
  applyQueueDeadline(mapped.request, req.headers.prefer);
  const idempotencyKey = idempotencyKeyOf(req.headers["idempotency-key"]);
  return { ...mapped, idempotencyKey, streamReply: mapped.stream, featureFields: OPENAI_FEATURE_FIELDS };
}

/** Answers the completed record in one body, shaped by `answer`; a failed one as its failure. */
export async function answerWhole(
  deps: TextDoorDeps,
  identity: CompletionIdentity,
  res: Response,
  answer: (identity: CompletionIdentity, record: StatusRecord) => unknown,
): Promise<void> {
  const stored = await finalRecord(deps, identity.requestId, res);
  if (res.closed) return;
  const record = stored?.record;
  if (record?.status !== "completed") throw recordFailure(record);
  sendJson(res, 200, answer(identity, record));
}
