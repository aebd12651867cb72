/**
 * `@chorus/worker/llm`: the worker's llama.cpp engines and the code that turns a request into its
 * prompt (characters, chat turns, sampling, context trimming), for the bench's direct baselines and
 * the tests that wire a worker. Loads node-llama-cpp; the speech side is `@chorus/worker/speech`.
 */
export { loadCharacterCatalog } from "../characters/character-catalog.js";
export {
  ensureLlamaServerBuild,
  findLlamaServer,
  llamaSourceBundle,
  missingForLlamaServerBuild,
} from "../engines/llm/llama-server.build.js";
export { cpuHasAmx } from "../engines/llm/llama-server.process.js";
export { sseJsonEvents } from "../engines/llm/llama-server.stream.js";
export { LLAMA_RUNTIMES, loadLlamaEngine, type LlamaRuntime } from "../engines/llm/llama-engine.factory.js";
export type { GenerationInput, LlmEngine } from "../engines/llm/llm-engine.js";
export { OpenAiCompatibleLlmEngine } from "../engines/llm/openai-compatible.llm-engine.js";
export { STOP_SEQUENCES } from "../engines/llm/stop-sequences.js";
export { resolveSampling } from "../processors/sampling.js";
export { publishModelFeatures } from "../models/publish-model-features.js";
export { buildChatTurns } from "../prompt/build-chat-turns.js";
export { trimToContext } from "../prompt/trim-to-context.js";
