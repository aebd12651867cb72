import { ApiError, isOpenAiSpeechModel, mapOpenAiSpeechRequest, OPENAI_SPEECH_MODEL_ALIASES } from "@chorus/contracts";
import type { Request, Response } from "express";
import { authenticatedKey } from "../middleware/authenticate.js";
import { logHttp } from "../middleware/request-context.js";
import { deliverSpeech, type SpeechRouteDeps } from "../routes/speech.route.js";
import { streamsSpeech } from "../routes/speech-delivery.js";

/** OpenAI's body, its `model` checked (404 naming it) and mapped onto the native speech request. */
function readOpenAiSpeech(req: Request, res: Response) {
  const model = (req.body as { model?: unknown } | null)?.model;
  if (typeof model === "string" && !isOpenAiSpeechModel(model)) {
    throw new ApiError(
      "NOT_FOUND",
      `the speech model '${model}' does not exist; speech models: ${OPENAI_SPEECH_MODEL_ALIASES.join(", ")}`,
      { parameter: "model" },
    );
  }
  return { request: mapOpenAiSpeechRequest(req.body), idempotencyKey: null, stream: streamsSpeech(req, res) };
}

/**
 * POST /v1/audio/speech: the speech job of POST /api/audio/full, admitted the same way (scope, budget),
 * delivered as that route delivers it: streamed as it is made, or whole with `Prefer: stream=false`.
 */
export function openAiSpeechHandler(deps: SpeechRouteDeps) {
  return async (req: Request, res: Response): Promise<void> => {
    const read = () => readOpenAiSpeech(req, res);
    const admitted = await deps.admission.admit({ key: authenticatedKey(req), read }, deps.budgets(req, res));
    const outcome = await deliverSpeech(req, res, admitted);
    logHttp(req, `speech ${outcome}`, {
      format: admitted.read.request.format,
      streamed: !res.hasHeader("Content-Length"),
    });
  };
}
