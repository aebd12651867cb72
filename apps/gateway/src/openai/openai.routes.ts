import { openAiModelList } from "@chorus/contracts";
import type { RedisClient } from "@chorus/platform/redis";
import type { Express, RequestHandler } from "express";
import { jsonBody } from "../middleware/json-body.js";
import { speechScope } from "../routes/speech.route.js";
import type { SpeechJobs } from "../services/speech-jobs.service.js";
import { chatCompletionsHandler, type ChatCompletionDeps } from "./chat-completions.route.js";
import { addOpenAiFallbacks } from "./openai-errors.js";
import { openAiSpeechHandler } from "./openai-speech.route.js";

export interface OpenAiRouteDeps {
  chat: ChatCompletionDeps;
  speech: SpeechJobs | null;
  /** Checked by /readyz as well: a Redis error on /v1 is a 503 as on /api. */
  connections: RedisClient[];
}

export interface OpenAiGuards {
  authenticate: RequestHandler;
  /** The per-model text budget (its key is the body's model: see spendTextBudgetOf). */
  text: RequestHandler;
  tts: RequestHandler;
}

/**
 * The OpenAI-compatible front door (issue 24): the same keys, scopes, budgets, queue and records
 * as /api, in OpenAI's shapes and error envelope. Its own 401/404/405 and error handler follow it.
 */
export function addOpenAiRoutes(app: Express, deps: OpenAiRouteDeps, guards: OpenAiGuards): void {
  const models = openAiModelList();
  app.get("/v1/models", guards.authenticate, (_req, res) => void res.json(models));
  // The body comes first: it names the model whose budget is spent (404 and 403 spend none, as on /api).
  app.post("/v1/chat/completions", guards.authenticate, jsonBody(), chatCompletionsHandler(deps.chat, guards.text));
  app.post(
    "/v1/audio/speech",
    guards.authenticate,
    speechScope,
    guards.tts,
    jsonBody(),
    openAiSpeechHandler(deps.speech),
  );
  addOpenAiFallbacks(app, guards.authenticate, deps.connections);
}
