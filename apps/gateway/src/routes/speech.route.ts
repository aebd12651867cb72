import { ApiError, compileValidator, grants, speechRequestSchema, VOICES, type SpeechRequest } from "@chorus/contracts";
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { authenticatedKey } from "../middleware/authenticate.js";
import { jsonBody } from "../middleware/json-body.js";
import { requestLogger } from "../middleware/request-context.js";
import type { SpeechJobs } from "../services/speech-jobs.service.js";

const validateSpeechRequest = compileValidator<SpeechRequest>(speechRequestSchema);

function speechScope(req: Request, _res: Response, next: NextFunction): void {
  if (grants(authenticatedKey(req).scopes, { kind: "tts" })) return next();
  next(new ApiError("FORBIDDEN", "this API key has no access to text-to-speech (scope tts)"));
}

/** POST /api/audio/full and POST /api/tts are the same operation; GET /api/voices lists the voices. */
export function speechRouter(speech: SpeechJobs | null, limit: RequestHandler): Router {
  const router = Router();
  router.get("/api/voices", (_req, res) => {
    res.json({ voices: VOICES });
  });
  router.post(["/api/audio/full", "/api/tts"], speechScope, limit, jsonBody(), async (req: Request, res: Response) => {
    const request = validateSpeechRequest(req.body);
    if (!speech) throw new ApiError("SERVICE_UNAVAILABLE", "text-to-speech is not enabled on this deployment");
    const { audio, meta } = await speech.synthesize(authenticatedKey(req).id, request);
    requestLogger(req).info("speech delivered", { format: meta.format, bytes: meta.byteLength, seconds: meta.durationSeconds });
    res.status(200);
    res.setHeader("Content-Type", meta.contentType);
    res.setHeader("Content-Length", audio.length);
    if (meta.durationSeconds !== null) res.setHeader("X-Audio-Duration", meta.durationSeconds.toFixed(3));
    if (meta.sampleRate !== null) res.setHeader("X-Sample-Rate", String(meta.sampleRate));
    res.end(audio);
  });
  return router;
}
