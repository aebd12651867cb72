// The OpenAI-compatible front door (/v1): its wire shapes, schemas and their mapping onto the native jobs. No
// I/O.
export * from "./openai-shapes.js";
export * from "./openai-models.js";
export { chatCompletionRequestSchema } from "./chat-completion-request.schema.js";
export {
  DEFAULT_CHAT_LIMITS,
  mapChatCompletionRequest,
  type ChatLimits,
  type MappedChatRequest,
} from "./map-chat-request.js";
export { IGNORED_FIELDS, NEUTRAL_ONLY_FIELDS } from "./neutral-fields.js";
export {
  isOpenAiSpeechModel,
  mapOpenAiSpeechRequest,
  openAiSpeechSchema,
  OPENAI_VOICE_MAP,
  type OpenAiSpeechRequest,
} from "./openai-speech.js";
export { toOpenAiError } from "./openai-errors.js";
export * from "./chat-completion-response.js";
export * from "./responses/index.js";
export * from "./files.js";
export * from "./completions/index.js";
export { chatToolChoiceSchema, chatToolsSchema, MAX_TOOLS } from "./map-tools.js";
export * from "./batches.js";
