import { mapTextCompletionRequest, textCompletionAnswer } from "@chorus/contracts";
import type { Request, Response } from "express";
import { authenticatedKey } from "../middleware/authenticate.js";
import { logHttp } from "../middleware/request-context.js";
import { streamCompletion } from "./chat-stream.js";
import { TextCompletionWriter } from "./text-completion-writer.js";
import {
  answerWhole,
  cancelWhenClientLeaves,
  modelNamedIn,
  withOpenAiHeaders,
  type TextDoorDeps,
} from "./text-door.js";

export type TextCompletionDeps = TextDoorDeps;

/**
 * POST /v1/completions: OpenAI's legacy text completion, a raw prompt continued as it is (no chat
 * template), read onto the same text job as a chat and admitted the same way; answered whole or
 * streamed, and followed under GET /api/v2/status/{id} like any request.
 */
export function textCompletionsHandler(deps: TextCompletionDeps) {
  return async (req: Request, res: Response): Promise<void> => {
    const read = () => withOpenAiHeaders(req, mapTextCompletionRequest(req.body, deps.limits));
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
      else await answerWhole(deps, identity, res, textCompletionAnswer);
    } finally {
      admitted.release();
    }
  };
}
