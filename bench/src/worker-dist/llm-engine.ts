/**
 * The worker's own compiled llama.cpp engine and the code that turns a request into its prompt
 * (default character, chat turns, sampling, context trimming), for the generation rows' direct
 * baseline. The only module that reaches into apps/worker/dist for text generation.
 */
export { loadCharacterCatalog } from "../../../apps/worker/dist/characters/character-catalog.js";
export { ensureLlamaServerBuild, findLlamaServer, llamaSourceBundle, missingForLlamaServerBuild } from "../../../apps/worker/dist/engines/llm/llama-server.build.js";
export { sseJsonEvents } from "../../../apps/worker/dist/engines/llm/llama-server.stream.js";
export { LLAMA_RUNTIMES, loadLlamaEngine } from "../../../apps/worker/dist/engines/llm/llama-engine.factory.js";
export { resolveSampling } from "../../../apps/worker/dist/processors/sampling.js";
export { buildChatTurns } from "../../../apps/worker/dist/prompt/build-chat-turns.js";
export { trimToContext } from "../../../apps/worker/dist/prompt/trim-to-context.js";
