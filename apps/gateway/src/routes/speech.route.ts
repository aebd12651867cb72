import { compileValidator, speechRequestSchema, VOICES, type SpeechRequest } from "@chorus/contracts";
import type { IRouter, Request, RequestHandler, Response } from "express";
import type { Budgets } from "../admission/budgets.js";
import type { AdmittedSpeech, SpeechAdmission } from "../admission/speech-admission.js";
import { authenticatedKey } from "../middleware/authenticate.js";
import { readJsonBody } from "../middleware/json-body.js";
import { logHttp, requestLogger } from "../middleware/request-context.js";
import { idempotencyKeyOf } from "../services/idempotency.js";
import { sendAudio } from "./send-audio.js";
import { sendStreamedSpeech } from "./send-audio-stream.js";
import { streamsSpeech } from "./speech-delivery.js";

const validateSpeechRequest = compileValidator<SpeechRequest>(speechRequestSchema);

export interface SpeechRouteDeps {
  admission: SpeechAdmission;
  /** The budgets one HTTP request spends (see requestBudgets). */
  budgets(req: Request, res: Response): Budgets;
}

/** Sends admitted speech: as it is made, or whole; a replay sends the first request's audio, whole. */
export async function deliverSpeech(req: Request, res: Response, admitted: AdmittedSpeech): Promise<string> {
  const logger = requestLogger(req);
  const { jobs } = admitted;
  const outcome = (delivered: boolean) => (delivered ? "delivered" : "client-gone");
  if (admitted.replay)
    return outcome(await sendAudio(res, jobs.audio, await jobs.replay(admitted.requestId), true, logger));
  try {
    if (admitted.read.stream)
      return await sendStreamedSpeech(res, jobs, admitted.job, {
        keep: admitted.keep,
        logger,
        beforeCut: admitted.release,
      });
    const whole = { requestId: admitted.requestId, meta: await admitted.job.finished };
    return outcome(await sendAudio(res, jobs.audio, whole, admitted.keep, logger));
  } catch (error) {
    await admitted.release();
    throw error;
  }
}

/** The native door: the spec's body, an optional Idempotency-Key. */
function speechHandler(deps: SpeechRouteDeps) {
  return async (req: Request, res: Response) => {
    const read = async () => ({
      request: validateSpeechRequest(await readJsonBody(req, res)),
      idempotencyKey: idempotencyKeyOf(req.headers["idempotency-key"]),
      stream: streamsSpeech(req, res),
    });
    const admitted = await deps.admission.admit({ key: authenticatedKey(req), read }, deps.budgets(req, res));
    const outcome = await deliverSpeech(req, res, admitted);
    logHttp(req, `speech ${outcome}`, {
      format: admitted.read.request.format,
      streamed: !res.hasHeader("Content-Length"),
    });
  };
}

/** POST /api/audio/full and POST /api/tts are the same operation; GET /api/voices lists the voices. */
export function addSpeechRoutes(router: IRouter, deps: SpeechRouteDeps, authenticate: RequestHandler): void {
  router.get("/api/voices", authenticate, (_req, res) => {
    res.json({ voices: VOICES });
  });
  const speak = speechHandler(deps);
  // Separate routes, not one with two paths, so metrics label each path without matching.
  for (const path of ["/api/audio/full", "/api/tts"]) router.post(path, authenticate, speak);
}
