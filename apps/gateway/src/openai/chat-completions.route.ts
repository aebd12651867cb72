import {
  chatCompletionOf,
  mapChatCompletionRequest,
  type ChatLimits,
  type CompletionIdentity,
  type MappedChatRequest,
} from "@chorus/contracts";
import type { Request, Response } from "express";
import type { TextAdmission, TextRequest } from "../admission/text-admission.js";
import { OPENAI_FEATURE_FIELDS } from "../admission/engine-features.js";
import type { Budgets } from "../admission/budgets.js";
import { authenticatedKey } from "../middleware/authenticate.js";
import { logHttp } from "../middleware/request-context.js";
import { sendJson } from "../routes/send-json.js";
import type { FinalStatusWaits } from "../services/final-status-waits.js";
import { idempotencyKeyOf } from "../services/idempotency.js";
import { applyQueueDeadline } from "../routes/prefer-wait.js";
import type { TextJobs } from "../services/text-jobs.service.js";
import { streamCompletion, type ChatStreamDeps } from "./chat-stream.js";
import { ChunkWriter } from "./chunk-writer.js";
import { recordFailure } from "./record-failure.js";
import { cancelWhenClientLeaves, finalRecord, modelNamedIn } from "./text-door.js";

export interface ChatCompletionDeps extends ChatStreamDeps {
  admission: TextAdmission;
  budgets(req: Request, res: Response): Budgets;
  jobs: TextJobs;
  waits: FinalStatusWaits;
  limits: ChatLimits;
}

async function answerWhole(deps: ChatCompletionDeps, identity: CompletionIdentity, res: Response): Promise<void> {
  const stored = await finalRecord(deps, identity.requestId, res);
  if (res.closed) return;
  const record = stored?.record;
  if (record?.status !== "completed") throw recordFailure(record);
  sendJson(res, 200, chatCompletionOf(identity, record));
}

/**
 * POST /v1/chat/completions: OpenAI's body read onto the text job of POST /api/text/{model},
 * admitted the same way, answered in OpenAI's shape, whole or streamed. The client holds its
 * connection for the answer, so the request holds one of its key's places while it is answered.
 */
export function chatCompletionsHandler(deps: ChatCompletionDeps) {
  return async (req: Request, res: Response): Promise<void> => {
    const read = (): MappedChatRequest & TextRequest => {
      const mapped = mapChatCompletionRequest(req.body, deps.limits);
      applyQueueDeadline(mapped.request, req.headers.prefer);
      const idempotencyKey = idempotencyKeyOf(req.headers["idempotency-key"]);
      return { ...mapped, idempotencyKey, streamReply: mapped.stream, featureFields: OPENAI_FEATURE_FIELDS };
    };
    const submission = { key: authenticatedKey(req), model: modelNamedIn(req.body), holdsStream: true, read };
    const admitted = await deps.admission.admit(submission, deps.budgets(req, res));
    try {
      const { id, model, read: mapped, replayed, acceptedAt } = admitted;
      logHttp(req, "chat completion accepted", {
        jobId: id,
        model,
        messages: mapped.request.messages.length,
        stream: mapped.stream,
        replayed,
      });
      cancelWhenClientLeaves(req, res, deps.jobs, id);
      // A replay's creation time is its record's; a new request's is known here (no round trip before the stream).
      const created = acceptedAt ?? (await deps.statuses.get(id))?.createdAt ?? Date.now();
      const identity = { requestId: id, model, created: Math.floor(created / 1000) };
      if (mapped.stream) await streamCompletion(res, deps, id, new ChunkWriter(res, identity, mapped));
      else await answerWhole(deps, identity, res);
    } finally {
      admitted.release();
    }
  };
}
