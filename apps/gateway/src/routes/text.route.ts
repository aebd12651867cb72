import { ApiError, grants, isModelId, MODEL_IDS, sentSamplingParams, validateGenerationRequest, type SubmitResponse } from "@chorus/contracts";
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { authenticatedKey } from "../middleware/authenticate.js";
import { jsonBody } from "../middleware/json-body.js";
import { requestLogger } from "../middleware/request-context.js";
import type { TextJobs } from "../services/text-jobs.service.js";

function knownModel(req: Request, _res: Response, next: NextFunction): void {
  const model = String(req.params.model);
  if (isModelId(model)) return next();
  next(new ApiError("NOT_FOUND", `unknown model '${model}'; valid model ids: ${MODEL_IDS.join(", ")}`));
}

function modelScope(req: Request, _res: Response, next: NextFunction): void {
  const model = String(req.params.model);
  if (isModelId(model) && grants(authenticatedKey(req).scopes, { kind: "text", model })) return next();
  next(new ApiError("FORBIDDEN", `this API key has no access to model '${model}' (scope text:${model})`));
}

export function textRouter(jobs: TextJobs, limit: RequestHandler): Router {
  const router = Router();
  router.post("/api/text/:model", knownModel, modelScope, limit, jsonBody(), async (req, res) => {
    const model = String(req.params.model);
    if (!isModelId(model)) throw new Error("unreachable: knownModel ran first");
    const clientSampling = sentSamplingParams(req.body);
    const request = validateGenerationRequest(model, req.body);
    const id = await jobs.submit(authenticatedKey(req).id, model, request, clientSampling);
    requestLogger(req).info("text request accepted", { jobId: id, model, messages: request.messages.length });
    const response: SubmitResponse = { id, tokens: -1 };
    res.status(200).json(response);
  });
  return router;
}
