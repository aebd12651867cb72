export {
  mapTextCompletionRequest,
  TEXT_COMPLETION_DEFAULT_MAX_TOKENS,
  textCompletionRequestSchema,
  type MappedTextCompletion,
} from "./completion-request.js";
export * from "./completion-response.js";
