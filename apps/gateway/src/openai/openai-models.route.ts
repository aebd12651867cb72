import { ApiError, openAiModel, openAiModelList } from "@chorus/contracts";
import type { Express, RequestHandler } from "express";
import { authenticatedKey } from "../middleware/authenticate.js";

/**
 * GET /v1/models and /v1/models/{id}: only the models the key's scopes let it use, so a client picks
 * from what it can call. A model outside the scopes is 404 as an unknown one (as OpenAI answers).
 */
export function addOpenAiModelRoutes(app: Express, authenticate: RequestHandler): void {
  app.get("/v1/models", authenticate, (req, res) => void res.json(openAiModelList(authenticatedKey(req).scopes)));
  app.get("/v1/models/:model", authenticate, (req, res) => {
    const id = String(req.params.model);
    const found = openAiModel(id, authenticatedKey(req).scopes);
    if (!found)
      throw new ApiError("NOT_FOUND", `the model '${id}' does not exist or this API key has no access to it`, {
        parameter: "model",
      });
    res.json(found);
  });
}
