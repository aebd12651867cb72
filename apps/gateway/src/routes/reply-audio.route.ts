import { ApiError, isRequestId } from "@chorus/contracts";
import type { StatusStore } from "@chorus/platform/scheduler";
import type { SpeechAudioStore } from "@chorus/platform/speech-audio";
import type { IRouter, NextFunction, Request, Response } from "express";
import { speechAccess } from "../admission/model-access.js";
import { authenticatedKey } from "../middleware/authenticate.js";
import { logHttp, requestLogger } from "../middleware/request-context.js";
import { notFound, ownedBy } from "../services/owned-status.js";
import type { RouteGuards } from "./route-guards.js";
import { sendAudio } from "./send-audio.js";

export interface ReplyAudioRouteDeps {
  statuses: StatusStore;
  audio: SpeechAudioStore;
}

/**
 * The spoken reply of a completed request that asked for `speak`; as often as asked, until its audio expires
 * (SPOKEN_REPLY_TTL_SECONDS).
 */
function answerReplyAudio(deps: ReplyAudioRouteDeps) {
  return async (req: Request, res: Response): Promise<void> => {
    const id = String(req.params.id);
    const stored = ownedBy(isRequestId(id) ? await deps.statuses.get(id) : null, authenticatedKey(req).id);
    if (!stored) throw notFound(id);
    if (stored.record.audioUrl === undefined)
      throw new ApiError(
        "NOT_FOUND",
        `request '${id}' has no spoken reply (it did not ask for speak, is not completed, or could not be spoken)`,
      );
    const meta = await deps.audio.meta(id);
    if (!meta) throw new ApiError("NOT_FOUND", `the spoken reply of request '${id}' has expired`);
    res.setHeader("Cache-Control", "private, max-age=3600");
    // Kept: the record still points at it, and a client may fetch it again.
    if (await sendAudio(res, deps.audio, { requestId: id, meta }, true, requestLogger(req)))
      logHttp(req, "spoken reply delivered", { jobId: id, format: meta.format, bytes: meta.byteLength });
  };
}

function speechScope(req: Request, _res: Response, next: NextFunction): void {
  try {
    speechAccess(authenticatedKey(req));
    next();
  } catch (refusal) {
    next(refusal);
  }
}

/** Both status paths' `/audio`: owner only (404 as for the record), tts scope, counted in the speech budget. */
export function addReplyAudioRoutes(router: IRouter, deps: ReplyAudioRouteDeps, guards: RouteGuards): void {
  const answer = answerReplyAudio(deps);
  for (const path of ["/api/v2/status/:id/audio", "/api/status/:id/audio"])
    router.get(path, guards.authenticate, speechScope, guards.limit, answer);
}
