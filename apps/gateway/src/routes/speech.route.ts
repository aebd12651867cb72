import { randomUUID } from "node:crypto";
import { ApiError, compileValidator, grants, speechRequestSchema, VOICES, type SpeechRequest } from "@chorus/contracts";
import type { IRouter, NextFunction, Request, Response } from "express";
import { authenticatedKey } from "../middleware/authenticate.js";
import { jsonBody } from "../middleware/json-body.js";
import { logHttp, requestLogger } from "../middleware/request-context.js";
import { idempotencyKeyOf, type IdempotencyKeys } from "../services/idempotency.js";
import type { SpeechJobs } from "../services/speech-jobs.service.js";
import type { RouteGuards } from "./route-guards.js";
import { sendAudio } from "./send-audio.js";
import { sendStreamedSpeech } from "./send-audio-stream.js";
import { streamsSpeech } from "./speech-delivery.js";

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

export type SpeechClaim = { requestId: string; fresh: boolean; keep: boolean; release: () => Promise<void> };

/** A request without an Idempotency-Key: its own id, its audio not kept for retries. */
export const unclaimedSpeech = (): SpeechClaim => ({
  requestId: randomUUID(),
  fresh: true,
  keep: false,
  release: () => Promise.resolve(),
});

/**
 * With an Idempotency-Key, the first request synthesizes and its audio is kept until it expires; a
 * retry with the same body gets those bytes (waiting if the first is still running); a request whose
 * synthesis fails frees the key (`release`) so the retry does the work.
 */
async function claimSpeech(
  deps: SpeechRouteDeps,
  keyId: string,
  request: SpeechRequest,
  idempotencyKey: string | null,
): Promise<SpeechClaim> {
  if (!idempotencyKey) return unclaimedSpeech();
  const scopedKey = `speech:${idempotencyKey}`;
  const claim = await deps.idempotency.claim(keyId, scopedKey, request, deps.keepSeconds);
  const release = () => deps.idempotency.release(keyId, scopedKey).catch(() => undefined);
  return { requestId: claim.requestId, fresh: claim.fresh, keep: true, release };
}

/** Synthesizes and sends the audio as it is made (see sendStreamedSpeech), or whole; a replay is always whole. */
export async function deliverSpeech(
  req: Request,
  res: Response,
  speech: SpeechJobs,
  request: SpeechRequest,
  claim: SpeechClaim,
): Promise<string> {
  const logger = requestLogger(req);
  const keyId = authenticatedKey(req).id;
  if (!claim.fresh)
    return (await sendAudio(res, speech.audio, await speech.replay(claim.requestId), true, logger))
      ? "delivered"
      : "client-gone";
  const streamed = streamsSpeech(req, res);
  try {
    if (!streamed)
      return (await sendAudio(
        res,
        speech.audio,
        await speech.synthesize(keyId, request, claim.requestId),
        claim.keep,
        logger,
      ))
        ? "delivered"
        : "client-gone";
    const job = await speech.startStreamed(keyId, request, claim.requestId);
    return await sendStreamedSpeech(res, speech, job, { keep: claim.keep, logger, beforeCut: claim.release });
  } catch (error) {
    await claim.release();
    throw error;
  }
}

function speechHandler(deps: SpeechRouteDeps) {
  return async (req: Request, res: Response) => {
    const idempotencyKey = idempotencyKeyOf(req.headers["idempotency-key"]);
    const request = validateSpeechRequest(req.body);
    const { speech } = deps;
    if (!speech) throw new ApiError("SERVICE_UNAVAILABLE", "text-to-speech is not enabled on this deployment");
    const claim = await claimSpeech(deps, authenticatedKey(req).id, request, idempotencyKey);
    const outcome = await deliverSpeech(req, res, speech, request, claim);
    logHttp(req, `speech ${outcome}`, { format: request.format, streamed: !res.hasHeader("Content-Length") });
  };
}

/** POST /api/audio/full and POST /api/tts are the same operation; GET /api/voices lists the voices. */
export function addSpeechRoutes(router: IRouter, deps: SpeechRouteDeps, guards: RouteGuards): void {
  router.get("/api/voices", guards.authenticate, (_req, res) => {
    res.json({ voices: VOICES });
  });
  const speak = speechHandler(deps);
  // Separate routes, not one with two paths, so metrics label each path without matching.
  for (const path of ["/api/audio/full", "/api/tts"])
    router.post(path, guards.authenticate, speechScope, guards.limit, jsonBody(), speak);
}
