import {
  ApiError,
  checkWebhookUrl,
  grants,
  isModelId,
  MODEL_IDS,
  sentSamplingParams,
  validateGenerationRequest,
  type GenerationRequest,
  type ModelId,
  type SubmitResponse,
} from "@chorus/contracts";
import type { StatusStore } from "@chorus/platform/scheduler";
import type { IRouter, NextFunction, Request, RequestHandler, Response } from "express";
import { authenticatedKey } from "../middleware/authenticate.js";
import { jsonBody } from "../middleware/json-body.js";
import { logHttp } from "../middleware/request-context.js";
import { spendSecondBudget } from "../middleware/second-budget.js";
import type { FinalStatusWaits } from "../services/final-status-waits.js";
import { holdingCap, holdStream, type HoldingDeps } from "./holding-caps.js";
import { markWaitApplied, preferredWaitSeconds } from "./prefer-wait.js";
import type { TextSubmission } from "../services/text-jobs.service.js";
import { submitOnce, type SubmitDeps } from "./submit-once.js";
import type { RouteGuards } from "./route-guards.js";
import { sendJson } from "./send-json.js";
import { finalOrLatest } from "./wait-for-final.js";

export interface TextRouteDeps extends SubmitDeps {
  statuses: StatusStore;
  waits: FinalStatusWaits;
  holds: HoldingDeps;
  webhooks: WebhookPolicy;
  /** False where speech is switched off: `speak` is then 503, as the speech endpoint is. */
  speechEnabled: boolean;
}

export interface WebhookPolicy {
  /** WEBHOOK_SECRET is set: without it nothing could be signed, so `webhook` is refused. */
  enabled: boolean;
  /** WEBHOOK_ALLOW_PRIVATE. */
  allowPrivate: boolean;
}

/**
 * An unknown model is 404; a known one outside the key's scopes is 403. One step, checked in that order; returns the
 * model.
 */
export function checkTextModelAccess(req: Request, model: string): ModelId {
  if (!isModelId(model))
    throw new ApiError("NOT_FOUND", `unknown model '${model}'; valid model ids: ${MODEL_IDS.join(", ")}`);
  if (grants(authenticatedKey(req).scopes, { kind: "text", model })) return model;
  throw new ApiError("FORBIDDEN", `this API key has no access to model '${model}' (scope text:${model})`);
}

function modelAccess(req: Request, _res: Response, next: NextFunction): void {
  try {
    checkTextModelAccess(req, String(req.params.model));
    next();
  } catch (error) {
    next(error);
  }
}

const WEBHOOKS_OFF =
  "webhook is not available on this deployment: no WEBHOOK_SECRET is configured. Its operator sets one on the gateways and workers, " +
  'e.g. WEBHOOK_SECRET="whsec_$(openssl rand -base64 32)" (see docs/api.md, Webhooks)';

/** The submit extensions of issue 16: `webhook` needs signing set up and an allowed host; `speak` the tts scope. */
function checkFinishOptions(req: Request, request: GenerationRequest, deps: TextRouteDeps): void {
  if (request.webhook !== undefined) {
    if (!deps.webhooks.enabled) throw ApiError.invalidParameter("webhook", "none", WEBHOOKS_OFF);
    checkWebhookUrl(request.webhook, deps.webhooks.allowPrivate);
  }
  if (request.speak !== undefined) {
    if (!grants(authenticatedKey(req).scopes, { kind: "tts" }))
      throw new ApiError("FORBIDDEN", "speak needs text-to-speech access; this API key has no scope tts");
    if (!deps.speechEnabled)
      throw new ApiError("SERVICE_UNAVAILABLE", "text-to-speech is not enabled on this deployment");
  }
}

/** The text route's guards, and the speech budget's limiter that a submit with `speak` also passes. */
export interface TextRouteGuards extends RouteGuards {
  speechLimit: RequestHandler;
}

export function addTextRoutes(router: IRouter, deps: TextRouteDeps, guards: TextRouteGuards): void {
  router.post("/api/text/:model", guards.authenticate, modelAccess, guards.limit, jsonBody(), async (req, res) => {
    const model = String(req.params.model) as ModelId;
    const clientSampling = sentSamplingParams(req.body);
    const request = validateGenerationRequest(model, req.body);
    checkFinishOptions(req, request, deps);
    // After the checks (a 400, 403 or 503 spends no speech), before anything is queued. When the
    // speech budget refuses, the text unit spent above stays spent, as it does for every submit
    // refused after the text limiter (a 400, a full queue): one rule for all refusals, and a client
    // that keeps retrying against a spent speech budget is held back by its text budget too.
    if (request.speak !== undefined) await spendSecondBudget(guards.speechLimit, req, res);
    const submission: TextSubmission = {
      keyId: authenticatedKey(req).id,
      model,
      request,
      clientSampling,
      inFlightCap: holdingCap(req, deps.holds.caps, "inflight"),
    };
    // A wait holds one of the key's open streams: taken before anything is queued, so a key at its
    // cap is refused (429) with nothing accepted, rather than accepted and then not waited for.
    const wait = preferredWaitSeconds(req.headers.prefer);
    const release = wait ? await holdStream(req, deps.holds) : () => undefined;
    try {
      const { id, replayed } = await submitOnce(req, deps, submission);
      // A retry with the Idempotency-Key of a request already accepted: its id, as at first.
      if (replayed) return sendJson(res, 200, { id, tokens: -1 } satisfies SubmitResponse);
      logHttp(req, "text request accepted", { jobId: id, model, messages: request.messages.length });
      await answerSubmit(deps, id, wait, res);
    } finally {
      release();
    }
  });
}

/** `{id, tokens: -1}`; with `Prefer: wait=N`, the finished record (with its id) if it finishes within N seconds. */
async function answerSubmit(deps: TextRouteDeps, id: string, wait: number | null, res: Response): Promise<void> {
  if (wait === null) return sendJson(res, 200, { id, tokens: -1 } satisfies SubmitResponse);
  markWaitApplied(res, wait);
  const stored = wait > 0 ? await finalOrLatest(deps.statuses, deps.waits, id, wait, res) : null;
  const finished = stored && stored.record.status !== "processing" ? stored.record : null;
  sendJson(res, 200, finished ? { id, ...finished } : ({ id, tokens: -1 } satisfies SubmitResponse));
}
