import {
  ApiError,
  chatCompletionOf,
  isModelId,
  mapChatCompletionRequest,
  MODEL_IDS,
  type CompletionIdentity,
  type MappedChatRequest,
  type ModelId,
} from "@chorus/contracts";
import type { StoredStatus } from "@chorus/platform/scheduler";
import type { Request, RequestHandler, Response } from "express";
import { authenticatedKey } from "../middleware/authenticate.js";
import { spendTextBudgetOf } from "../middleware/rate-limit.js";
import { logHttp, requestLogger } from "../middleware/request-context.js";
import { holdingCap, holdStream, type HoldingDeps } from "../routes/holding-caps.js";
import { MAX_WAIT_SECONDS } from "../routes/prefer-wait.js";
import { sendJson } from "../routes/send-json.js";
import { submitOnce, type SubmitDeps } from "../routes/submit-once.js";
import { checkTextModelAccess } from "../routes/text.route.js";
import { finalOrLatest } from "../routes/wait-for-final.js";
import type { FinalStatusWaits } from "../services/final-status-waits.js";
import { streamCompletion, type ChatStreamDeps } from "./chat-stream.js";

export interface ChatCompletionDeps extends SubmitDeps, ChatStreamDeps {
  waits: FinalStatusWaits;
  holds: HoldingDeps;
}

/** The body's model, checked as POST /api/text/{model} checks its path: 404 (naming `model`) before 403. */
function textModelOf(req: Request): ModelId {
  const model = (req.body as { model?: unknown } | null)?.model;
  if (typeof model !== "string")
    throw ApiError.invalidParameter("model", "string", "model is required: one of " + MODEL_IDS.join(", "));
  if (!isModelId(model))
    throw new ApiError("NOT_FOUND", `the model '${model}' does not exist; text models: ${MODEL_IDS.join(", ")}`, {
      parameter: "model",
    });
  return checkTextModelAccess(req, model);
}

/** Runs a guard (the text budget's limiter) inside a handler, as its route chain would have. */
function passGuard(guard: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise(
    (resolve, reject: (error: Error) => void) =>
      void guard(req, res, (error?: unknown) => (error ? reject(error as Error) : resolve())),
  );
}

/**
 * The body mapped onto the text job. A body refused (400) still spends one unit of the budget, as any
 * request does (429 instead when it is spent), and takes no open stream.
 */
async function mappedOrRefused(req: Request, res: Response, textLimit: RequestHandler): Promise<MappedChatRequest> {
  try {
    return mapChatCompletionRequest(req.body);
  } catch (refusal) {
    await passGuard(textLimit, req, res);
    throw refusal;
  }
}

/**
 * Spends one unit of the model's text budget and takes one of the key's open streams. The two are
 * independent round trips to Redis, so they go together (time to the first token counts them); a
 * refused budget gives the place back, and its 429 is the one answered.
 */
async function spendAndHold(
  req: Request,
  res: Response,
  deps: ChatCompletionDeps,
  textLimit: RequestHandler,
): Promise<() => void> {
  const [spent, held] = await Promise.allSettled([passGuard(textLimit, req, res), holdStream(req, deps.holds)]);
  if (spent.status === "rejected") {
    if (held.status === "fulfilled") held.value();
    throw spent.reason;
  }
  if (held.status === "rejected") throw held.reason;
  return held.value;
}

/** A client that leaves before its answer is whole cancels the job (when it is still processing). */
function cancelWhenClientLeaves(req: Request, res: Response, deps: ChatCompletionDeps, id: string): void {
  const cancel = () => {
    if (res.writableFinished) return;
    deps.jobs.cancel(id).then(
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
async function finalRecord(deps: ChatCompletionDeps, id: string, res: Response): Promise<StoredStatus | null> {
  for (;;) {
    const stored = await finalOrLatest(deps.statuses, deps.waits, id, MAX_WAIT_SECONDS, res);
    if (!stored || stored.record.status !== "processing" || res.closed) return stored;
  }
}

async function answerWhole(
  deps: ChatCompletionDeps,
  identity: CompletionIdentity,
  mapped: MappedChatRequest,
  res: Response,
): Promise<void> {
  const stored = await finalRecord(deps, identity.requestId, res);
  if (res.closed) return;
  const record = stored?.record;
  if (record?.status !== "completed")
    throw new ApiError("INTERNAL_ERROR", `the completion failed: ${record?.error ?? "its record expired"}`);
  sendJson(res, 200, chatCompletionOf(identity, record, mapped.request.samplingParams.max_tokens));
}

/**
 * POST /v1/chat/completions: the text job POST /api/text/{model} makes (same budget, scopes, caps,
 * queue, record and Idempotency-Key), answered in OpenAI's shape, whole or streamed. The request
 * holds one of its key's open streams while it is answered, as a Prefer: wait does.
 */
export function chatCompletionsHandler(deps: ChatCompletionDeps, textLimit: RequestHandler) {
  return async (req: Request, res: Response): Promise<void> => {
    const model = textModelOf(req);
    spendTextBudgetOf(req, model);
    const mapped = await mappedOrRefused(req, res, textLimit);
    const release = await spendAndHold(req, res, deps, textLimit);
    try {
      const { request, clientSampling, stream } = mapped;
      const submission = {
        keyId: authenticatedKey(req).id,
        model,
        request,
        clientSampling,
        inFlightCap: holdingCap(req, deps.holds.caps, "inflight"),
        streamReply: stream,
      };
      const { id, replayed } = await submitOnce(req, deps, submission);
      logHttp(req, "chat completion accepted", {
        jobId: id,
        model,
        messages: mapped.request.messages.length,
        stream: mapped.stream,
        replayed,
      });
      cancelWhenClientLeaves(req, res, deps, id);
      const stored = await deps.statuses.get(id);
      const identity = { requestId: id, model, created: Math.floor((stored?.createdAt ?? Date.now()) / 1000) };
      if (mapped.stream) await streamCompletion(res, deps, identity, mapped);
      else await answerWhole(deps, identity, mapped, res);
    } finally {
      release();
    }
  };
}
