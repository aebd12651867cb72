import type { FileStore } from "@chorus/platform/files";
import type { RedisClient } from "@chorus/platform/redis";
import type { Express, RequestHandler } from "express";
import { jsonBody } from "../middleware/json-body.js";
import type { SpeechRouteDeps } from "../routes/speech.route.js";
import { chatCompletionsHandler, type ChatCompletionDeps } from "./chat-completions.route.js";
import { addBatchRoutes, type BatchRouteDeps } from "./batches.route.js";
import { addFileRoutes } from "./files.route.js";
import { addOpenAiFallbacks } from "./openai-errors.js";
import { addOpenAiModelRoutes } from "./openai-models.route.js";
import { openAiSpeechHandler } from "./openai-speech.route.js";
import { addResponsesRoutes, type ResponsesDeps } from "./responses.route.js";
import { textCompletionsHandler } from "./text-completions.route.js";

export interface OpenAiRouteDeps {
  chat: ChatCompletionDeps;
  responses: ResponsesDeps;
  speech: SpeechRouteDeps;
  files: FileStore;
  batches: BatchRouteDeps;
  /** Checked by /readyz as well: a Redis error on /v1 is a 503 as on /api. */
  connections: RedisClient[];
}

/**
 * The OpenAI-compatible front door: the same keys, scopes, budgets, queue and records as /api (both
 * doors go through the same admission), in OpenAI's shapes and error envelope. Its own
 * 401/404/405 and error handler follow it.
 */
export function addOpenAiRoutes(
  app: Express,
  deps: OpenAiRouteDeps,
  guards: { authenticate: RequestHandler; status: RequestHandler },
): void {
  const { authenticate } = guards;
  addOpenAiModelRoutes(app, authenticate);
  // The body comes first: it names the model (whose budget admission spends).
  app.post("/v1/chat/completions", authenticate, jsonBody(), chatCompletionsHandler(deps.chat));
  // The same admission and job as a chat: its deps are the chat door's.
  app.post("/v1/completions", authenticate, jsonBody(), textCompletionsHandler(deps.chat));
  app.post("/v1/audio/speech", authenticate, jsonBody(), openAiSpeechHandler(deps.speech));
  addResponsesRoutes(app, deps.responses, guards);
  addFileRoutes(app, deps.files, authenticate, guards.status);
  addBatchRoutes(app, deps.batches, authenticate, guards.status);
  addOpenAiFallbacks(app, authenticate, deps.connections);
}
