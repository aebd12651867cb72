import { ApiError, compileValidator, grants, speechRequestSchema, VOICES, type SpeechRequest } from "@chorus/contracts";
import type { IRouter, NextFunction, Request, Response } from "express";
import { authenticatedKey } from "../middleware/authenticate.js";
import { jsonBody } from "../middleware/json-body.js";
import { logHttp, requestLogger } from "../middleware/request-context.js";
import { idempotencyKeyOf, type IdempotencyKeys } from "../services/idempotency.js";
import type { SpeechJobs } from "../services/speech-jobs.service.js";
import type { RouteGuards } from "./route-guards.js";
import { sendAudio } from "./send-audio.js";

const validateSpeechRequest = compileValidator<SpeechRequest>(speechRequestSchema);

export function speechScope(req: Request, _res: Response, next: NextFunction): void {
  if (grants(authenticatedKey(req).scopes, { kind: "tts" })) return next();
  next(new ApiError("FORBIDDEN", "this API key has no access to text-to-speech (scope tts)"));
}

export interface SpeechRouteDeps {
  /** Null where speech is switched off (the routes then answer 503). */
  speech: SpeechJobs | null;
  idempotency: IdempotencyKeys;
  /** How long an Idempotency-Key of a speech request is remembered (the audio lives as long). */
  keepSeconds: number;
}

/**
 * With an Idempotency-Key, the first request synthesizes and its audio is kept until it expires; a
 * retry with the same body gets those bytes (waiting if the first is still running); a failed first
 * request frees the key so the retry does the work. Returns the audio and whether to keep it.
 */
async function speakOnce(deps: SpeechRouteDeps & { speech: SpeechJobs }, keyId: string, request: SpeechRequest, idempotencyKey: string | null) {
  if (!idempotencyKey) return { speech: await deps.speech.synthesize(keyId, request), keep: false };
  const scopedKey = `speech:${idempotencyKey}`;
  const claim = await deps.idempotency.claim(keyId, scopedKey, request, deps.keepSeconds);
  if (!claim.fresh) return { speech: await deps.speech.replay(claim.requestId), keep: true };
  try {
    return { speech: await deps.speech.synthesize(keyId, request, claim.requestId), keep: true };
  } catch (error) {
    await deps.idempotency.release(keyId, scopedKey).catch(() => undefined);
    throw error;
  }
}

function speechHandler(deps: SpeechRouteDeps) {
  return async (req: Request, res: Response) => {
    const idempotencyKey = idempotencyKeyOf(req.headers["idempotency-key"]);
    const request = validateSpeechRequest(req.body);
    const speech = deps.speech;
    if (!speech) throw new ApiError("SERVICE_UNAVAILABLE", "text-to-speech is not enabled on this deployment");
    const { speech: synthesized, keep } = await speakOnce({ ...deps, speech }, authenticatedKey(req).id, request, idempotencyKey);
    const { meta } = synthesized;
    if (await sendAudio(res, speech.audio, synthesized, keep, requestLogger(req))) logHttp(req, "speech delivered", { format: meta.format, bytes: meta.byteLength, seconds: meta.durationSeconds });
  };
}

/** POST /api/audio/full and POST /api/tts are the same operation; GET /api/voices lists the voices. */
export function addSpeechRoutes(router: IRouter, deps: SpeechRouteDeps, guards: RouteGuards): void {
  router.get("/api/voices", guards.authenticate, (_req, res) => {
    res.json({ voices: VOICES });
  });
  const speak = speechHandler(deps);
  // Separate routes, not one with two paths, so metrics label each path without matching.
  for (const path of ["/api/audio/full", "/api/tts"]) router.post(path, guards.authenticate, speechScope, guards.limit, jsonBody(), speak);
}
