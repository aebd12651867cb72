import { chatCompletionOf, mapChatCompletionRequest } from "@chorus/contracts";
import type { Request, Response } from "express";
import { authenticatedKey } from "../middleware/authenticate.js";
import { logHttp } from "../middleware/request-context.js";
import { streamCompletion } from "./chat-stream.js";
import { ChunkWriter } from "./chunk-writer.js";
import {
  answerWhole,
  cancelWhenClientLeaves,
  modelNamedIn,
  withOpenAiHeaders,
  type TextDoorDeps,
} from "./text-door.js";

export type ChatCompletionDeps = TextDoorDeps;

/**
 * POST /v1/chat/completions: OpenAI's body read onto the text job of POST /api/text/{model},
 * admitted the same way, answered in OpenAI's shape, whole or streamed. The client holds its
 * connection for the answer, so the request holds one of its key's places while it is answered.
 */
export function chatCompletionsHandler(deps: ChatCompletionDeps) {
  return async (req: Request, res: Response): Promise<void> => {
    const read = () => withOpenAiHeaders(req, mapChatCompletionRequest(req.body, deps.limits));
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
      else await answerWhole(deps, identity, res, chatCompletionOf);
    } finally {
      admitted.release();
    }
  };
}
