import { ApiError, compileValidator, grants, speechRequestSchema, VOICES, type SpeechRequest } from "@chorus/contracts";
import type { IRouter, NextFunction, Request, Response } from "express";
import { authenticatedKey } from "../middleware/authenticate.js";
import { jsonBody } from "../middleware/json-body.js";
import { requestLogger } from "../middleware/request-context.js";
import { idempotencyKeyOf, type IdempotencyKeys } from "../services/idempotency.js";
import type { SpeechJobs } from "../services/speech-jobs.service.js";
import type { RouteGuards } from "./route-guards.js";

const validateSpeechRequest = compileValidator<SpeechRequest>(speechRequestSchema);

function speechScope(req: Request, _res: Response, next: NextFunction): void {
  if (grants(authenticatedKey(req).scopes, { kind: "tts" })) return next();
  next(new ApiError("FORBIDDEN", "this API key has no access to text-to-speech (scope tts)"));
}

export interface SpeechRouteDeps {
  /** Null where speech is switched off (the routes then answer 503). */
  speech: SpeechJobs | null;
  idempotency: IdempotencyKeys;
  /** How long delivered audio is kept for retries with the same Idempotency-Key. */
  keepSeconds: number;
}

/**
 * With an Idempotency-Key, the first request synthesizes and keeps its audio for `keepSeconds`; a
 * retry with the same body gets those bytes (waiting if the first is still running); a failed first
 * request frees the key so the retry does the work.
 */
async function speakOnce(deps: SpeechRouteDeps & { speech: SpeechJobs }, keyId: string, request: SpeechRequest, idempotencyKey: string | null) {
  if (!idempotencyKey) return deps.speech.synthesize(keyId, request);
  const scopedKey = `speech:${idempotencyKey}`;
  const claim = await deps.idempotency.claim(keyId, scopedKey, request, deps.keepSeconds);
  if (!claim.fresh) return deps.speech.replay(claim.requestId);
  try {
    return await deps.speech.synthesize(keyId, request, claim.requestId, deps.keepSeconds);
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
    const { audio, meta } = await speakOnce({ ...deps, speech }, authenticatedKey(req).id, request, idempotencyKey);
    requestLogger(req).http("speech delivered", { format: meta.format, bytes: meta.byteLength, seconds: meta.durationSeconds });
    res.status(200);
    res.setHeader("Content-Type", meta.contentType);
    res.setHeader("Content-Length", audio.length);
    if (meta.durationSeconds !== null) res.setHeader("X-Audio-Duration", meta.durationSeconds.toFixed(3));
    if (meta.sampleRate !== null) res.setHeader("X-Sample-Rate", String(meta.sampleRate));
    res.end(audio);
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
