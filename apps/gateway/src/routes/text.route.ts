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
import type { StatusStore } from "@chorus/platform";
import type { IRouter, NextFunction, Request, RequestHandler, Response } from "express";
import { authenticatedKey } from "../middleware/authenticate.js";
import { jsonBody } from "../middleware/json-body.js";
import { logHttp } from "../middleware/request-context.js";
import { spendSecondBudget } from "../middleware/second-budget.js";
import { idempotencyKeyOf, type IdempotencyKeys } from "../services/idempotency.js";
import type { FinalStatusWaits } from "../services/final-status-waits.js";
import type { QueueDepth } from "../services/queue-depth.js";
import { holdingCap, holdStream, type HoldingDeps } from "./holding-caps.js";
import { markWaitApplied, preferredWaitSeconds } from "./prefer-wait.js";
import type { TextJobs, TextSubmission } from "../services/text-jobs.service.js";
import type { RouteGuards } from "./route-guards.js";
import { sendJson } from "./send-json.js";
import { finalOrLatest } from "./wait-for-final.js";

export interface TextRouteDeps {
  jobs: TextJobs;
  statuses: StatusStore;
  waits: FinalStatusWaits;
  idempotency: IdempotencyKeys;
  queueDepth: QueueDepth;
  /** Text jobs queued, waiting for a retry or running beyond which new submissions get 503 (0: no limit). */
  maxQueueDepth: number;
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

/** An unknown model is 404; a known one outside the key's scopes is 403. One step, checked in that order. */
function modelAccess(req: Request, _res: Response, next: NextFunction): void {
  const model = String(req.params.model);
  if (!isModelId(model)) return next(new ApiError("NOT_FOUND", `unknown model '${model}'; valid model ids: ${MODEL_IDS.join(", ")}`));
  if (grants(authenticatedKey(req).scopes, { kind: "text", model })) return next();
  next(new ApiError("FORBIDDEN", `this API key has no access to model '${model}' (scope text:${model})`));
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
    if (!grants(authenticatedKey(req).scopes, { kind: "tts" })) throw new ApiError("FORBIDDEN", "speak needs text-to-speech access; this API key has no scope tts");
    if (!deps.speechEnabled) throw new ApiError("SERVICE_UNAVAILABLE", "text-to-speech is not enabled on this deployment");
  }
}

function refuseWhenQueueFull(deps: TextRouteDeps): void {
  const backlog = deps.queueDepth.current;
  if (deps.maxQueueDepth > 0 && backlog !== null && backlog >= deps.maxQueueDepth) {
    throw new ApiError("SERVICE_UNAVAILABLE", `the service is at capacity (${backlog} requests queued or running); retry later`, undefined, 5);
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
    const submission: TextSubmission = { keyId: authenticatedKey(req).id, model, request, clientSampling, inFlightCap: holdingCap(req, deps.holds.caps, "inflight") };
    // A wait holds one of the key's open streams: taken before anything is queued, so a key at its
    // cap is refused (429) with nothing accepted, rather than accepted and then not waited for.
    const wait = preferredWaitSeconds(req.headers.prefer);
    const release = wait ? await holdStream(req, deps.holds) : () => undefined;
    try {
      const id = await submitOnce(req, res, deps, submission);
      if (id === null) return;
      logHttp(req, "text request accepted", { jobId: id, model, messages: request.messages.length });
      await answerSubmit(deps, id, wait, res);
    } finally {
      release();
    }
  });
}

/**
 * Submits, unless an Idempotency-Key names a request already accepted: then that request's id is
 * answered as at first (and null returned).
 */
async function submitOnce(req: Request, res: Response, deps: TextRouteDeps, submission: TextSubmission): Promise<string | null> {
  const idempotencyKey = idempotencyKeyOf(req.headers["idempotency-key"]);
  if (!idempotencyKey) {
    refuseWhenQueueFull(deps);
    return deps.jobs.submit(submission);
  }
  const { keyId, model, request, clientSampling } = submission;
  const claim = await deps.idempotency.claim(keyId, idempotencyKey, { model, request, clientSampling });
  if (!claim.fresh) {
    sendJson(res, 200, { id: claim.requestId, tokens: -1 } satisfies SubmitResponse);
    return null;
  }
  try {
    refuseWhenQueueFull(deps);
    return await deps.jobs.submit({ ...submission, requestId: claim.requestId });
  } catch (error) {
    // Refused or not stored: the key must not keep pointing at a request that does not exist.
    // Left open: a duplicate arriving between claim and release gets that id, and an enqueue that
    // reached Redis but timed out here can be enqueued again by the retry (issue 13).
    await deps.idempotency.release(keyId, idempotencyKey).catch(() => undefined);
    throw error;
  }
}

/** `{id, tokens: -1}`; with `Prefer: wait=N`, the finished record (with its id) if it finishes within N seconds. */
async function answerSubmit(deps: TextRouteDeps, id: string, wait: number | null, res: Response): Promise<void> {
  if (wait === null) return sendJson(res, 200, { id, tokens: -1 } satisfies SubmitResponse);
  markWaitApplied(res, wait);
  const stored = wait > 0 ? await finalOrLatest(deps.statuses, deps.waits, id, wait, res) : null;
  const finished = stored && stored.record.status !== "processing" ? stored.record : null;
  sendJson(res, 200, finished ? { id, ...finished } : ({ id, tokens: -1 } satisfies SubmitResponse));
}
