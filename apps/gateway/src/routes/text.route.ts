import { sentSamplingParams, validateGenerationRequest, type ModelId, type SubmitResponse } from "@chorus/contracts";
import type { StatusStore } from "@chorus/platform/scheduler";
import type { IRouter, Request, RequestHandler, Response } from "express";
import type { Budgets } from "../admission/budgets.js";
import type { TextAdmission } from "../admission/text-admission.js";
import { authenticatedKey } from "../middleware/authenticate.js";
import { readJsonBody } from "../middleware/json-body.js";
import { logHttp } from "../middleware/request-context.js";
import type { FinalStatusWaits } from "../services/final-status-waits.js";
import { idempotencyKeyOf } from "../services/idempotency.js";
import { applyQueueDeadline, markWaitApplied, preferredWaitSeconds } from "./prefer-wait.js";
import { sendJson } from "./send-json.js";
import { finalOrLatest } from "./wait-for-final.js";

export interface TextRouteDeps {
  admission: TextAdmission;
  /** The budgets one HTTP request spends (see requestBudgets). */
  budgets(req: Request, res: Response): Budgets;
  statuses: StatusStore;
  waits: FinalStatusWaits;
}

/** The native door: the model in the path, the spec's body, `Prefer: wait` and an optional Idempotency-Key. */
export function addTextRoutes(router: IRouter, deps: TextRouteDeps, authenticate: RequestHandler): void {
  router.post("/api/text/:model", authenticate, async (req, res) => {
    const wait = preferredWaitSeconds(req.headers.prefer);
    const read = async (model: ModelId) => {
      const body = await readJsonBody(req, res);
      // Before validation, which fills in the spec's defaults: the worker fills in the model's instead.
      const clientSampling = sentSamplingParams(body);
      const request = validateGenerationRequest(model, body);
      applyQueueDeadline(request, req.headers.prefer);
      return { request, clientSampling, idempotencyKey: idempotencyKeyOf(req.headers["idempotency-key"]) };
    };
    // A wait holds one of the key's places: taken before anything is queued, so a key at its cap
    // is refused (429) with nothing accepted, rather than accepted and then not waited for.
    const submission = {
      key: authenticatedKey(req),
      model: String(req.params.model),
      holdsStream: Boolean(wait),
      read,
    };
    const admitted = await deps.admission.admit(submission, deps.budgets(req, res));
    try {
      // A retry with the Idempotency-Key of a request already accepted: its id, as at first.
      if (admitted.replayed) return sendJson(res, 200, { id: admitted.id, tokens: -1 } satisfies SubmitResponse);
      const { id, model, read: text } = admitted;
      logHttp(req, "text request accepted", { jobId: id, model, messages: text.request.messages.length });
      await answerSubmit(deps, id, wait, res);
    } finally {
      admitted.release();
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
