import { ApiError, isOpenAiSpeechModel, mapOpenAiSpeechRequest, OPENAI_SPEECH_MODEL_ALIASES } from "@chorus/contracts";
import type { Request, Response } from "express";
import { authenticatedKey } from "../middleware/authenticate.js";
import { logHttp, requestLogger } from "../middleware/request-context.js";
import { sendAudio } from "../routes/send-audio.js";
import type { SpeechJobs } from "../services/speech-jobs.service.js";

/**
 * POST /v1/audio/speech: OpenAI's body mapped onto the speech job of POST /api/audio/full (the
 * route chain spends the same budget under the same scope), answered with the whole audio.
 */
export function openAiSpeechHandler(speech: SpeechJobs | null) {
  return async (req: Request, res: Response): Promise<void> => {
    const model = (req.body as { model?: unknown } | null)?.model;
    if (typeof model === "string" && !isOpenAiSpeechModel(model)) {
      throw new ApiError("NOT_FOUND", `the speech model '${model}' does not exist; speech models: ${OPENAI_SPEECH_MODEL_ALIASES.join(", ")}`, { parameter: "model" });
    }
    const request = mapOpenAiSpeechRequest(req.body);
    if (!speech) throw new ApiError("SERVICE_UNAVAILABLE", "text-to-speech is not enabled on this deployment");
    const synthesized = await speech.synthesize(authenticatedKey(req).id, request);
    const { meta } = synthesized;
    if (await sendAudio(res, speech.audio, synthesized, false, requestLogger(req))) logHttp(req, "speech delivered", { format: meta.format, bytes: meta.byteLength, seconds: meta.durationSeconds });
  };
}
