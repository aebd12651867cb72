import { ApiError, isOpenAiSpeechModel, mapOpenAiSpeechRequest, OPENAI_SPEECH_MODEL_ALIASES } from "@chorus/contracts";
import type { Request, Response } from "express";
import { logHttp } from "../middleware/request-context.js";
import { deliverSpeech, unclaimedSpeech } from "../routes/speech.route.js";
import type { SpeechJobs } from "../services/speech-jobs.service.js";

/**
 * POST /v1/audio/speech: OpenAI's body mapped onto the speech job of POST /api/audio/full (the
 * route chain spends the same budget under the same scope), delivered as that route delivers it:
 * streamed as it is made, or whole with `Prefer: stream=false` (and for HTTP/1.0).
 */
export function openAiSpeechHandler(speech: SpeechJobs | null) {
  return async (req: Request, res: Response): Promise<void> => {
    const model = (req.body as { model?: unknown } | null)?.model;
    if (typeof model === "string" && !isOpenAiSpeechModel(model)) {
      throw new ApiError(
        "NOT_FOUND",
        `the speech model '${model}' does not exist; speech models: ${OPENAI_SPEECH_MODEL_ALIASES.join(", ")}`,
        { parameter: "model" },
      );
    }
    const request = mapOpenAiSpeechRequest(req.body);
    if (!speech) throw new ApiError("SERVICE_UNAVAILABLE", "text-to-speech is not enabled on this deployment");
    const outcome = await deliverSpeech(req, res, speech, request, unclaimedSpeech());
    logHttp(req, `speech ${outcome}`, { format: request.format, streamed: !res.hasHeader("Content-Length") });
  };
}
