import {
  mapTextCompletionRequest,
  textCompletionAnswer,
  type ChatLimits,
  type CompletionIdentity,
} from "@chorus/contracts";
import type { Request, Response } from "express";
import type { TextAdmission } from "../admission/text-admission.js";
import type { Budgets } from "../admission/budgets.js";
import { OPENAI_FEATURE_FIELDS } from "../admission/engine-features.js";
import { authenticatedKey } from "../middleware/authenticate.js";
import { logHttp } from "../middleware/request-context.js";
import { applyQueueDeadline } from "../routes/prefer-wait.js";
import { sendJson } from "../routes/send-json.js";
import type { FinalStatusWaits } from "../services/final-status-waits.js";
import { idempotencyKeyOf } from "../services/idempotency.js";
import type { TextJobs } from "../services/text-jobs.service.js";
import { streamCompletion, type ChatStreamDeps } from "./chat-stream.js";
import { recordFailure } from "./record-failure.js";
import { TextCompletionWriter } from "./text-completion-writer.js";
import { cancelWhenClientLeaves, finalRecord, modelNamedIn } from "./text-door.js";

export interface TextCompletionDeps extends ChatStreamDeps {
  admission: TextAdmission;
  budgets(req: Request, res: Response): Budgets;
  jobs: TextJobs;
  waits: FinalStatusWaits;
  limits: ChatLimits;
}

async function answerWhole(deps: TextCompletionDeps, identity: CompletionIdentity, res: Response): Promise<void> {
  const stored = await finalRecord(deps, identity.requestId, res);
  if (res.closed) return;
  const record = stored?.record;
  if (record?.status !== "completed") throw recordFailure(record);
  sendJson(res, 200, textCompletionAnswer(identity, record));
}

/**
 * POST /v1/completions: OpenAI's legacy text completion, a raw prompt continued as it is (no chat
 * template), read onto the same text job as a chat and admitted the same way; answered whole or
 * streamed, and followed under GET /api/v2/status/{id} like any request.
 */
export function textCompletionsHandler(deps: TextCompletionDeps) {
  return async (req: Request, res: Response): Promise<void> => {
    const read = () => {
      const mapped = mapTextCompletionRequest(req.body, deps.limits);
      applyQueueDeadline(mapped.request, req.headers.prefer);
      const idempotencyKey = idempotencyKeyOf(req.headers["idempotency-key"]);
      return { ...mapped, idempotencyKey, streamReply: mapped.stream, featureFields: OPENAI_FEATURE_FIELDS };
    };
    const submission = { key: authenticatedKey(req), model: modelNamedIn(req.body), holdsStream: true, read };
    const admitted = await deps.admission.admit(submission, deps.budgets(req, res));
    try {
      const { id, model, read: mapped, replayed, acceptedAt } = admitted;
      logHttp(req, "text completion accepted", { jobId: id, model, stream: mapped.stream, replayed });
      cancelWhenClientLeaves(req, res, deps.jobs, id);
      const created = acceptedAt ?? (await deps.statuses.get(id))?.createdAt ?? Date.now();
      const identity = { requestId: id, model, created: Math.floor(created / 1000) };
      if (mapped.stream)
        await streamCompletion(res, deps, id, new TextCompletionWriter(res, identity, mapped.includeUsage));
      else await answerWhole(deps, identity, res);
    } finally {
      admitted.release();
    }
  };
}
