import { sentSamplingParams, validateGenerationRequest, type GenerateTextJob } from "@chorus/contracts";
import { createLogger } from "@chorus/platform/logger";
import { nowMs } from "../metrics/clock.js";
import {
  buildChatTurns,
  findLlamaServer,
  LLAMA_RUNTIMES,
  loadCharacterCatalog,
  loadLlamaEngine,
  resolveSampling,
  trimToContext,
} from "@chorus/worker/llm";
import type { GenerationCall, GenerationTiming } from "./direct-engine-messages.js";
import { serveEngineCalls } from "./engine-call-server.js";

/**
 * Baseline of the generation rows: the worker's own llama.cpp engine, alone in a process, loaded as the bench's worker
 * loads it (LLM_MODEL, LLM_THREADS, SEQUENCES = the worker's concurrency, LLM_CONTEXT_SIZE, LLAMA_RUNTIME: llama-server
 * when built, else in process). Each call turns a request body into the prompt the worker would build (validation, the
 * `default` character, sampling resolution, context trimming), then times generate() alone. No queue, no status record,
 * no progress writes, no HTTP.
 */
const setting = (name: string): number => {
  const value = Number(process.env[name]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number >= 1`);
  return value;
};

const runtime = LLAMA_RUNTIMES.find((name) => name === process.env.LLAMA_RUNTIME) ?? "auto";
const { engine } = await loadLlamaEngine({
  modelPath: process.env.LLM_MODEL ?? "",
  threads: setting("LLM_THREADS"),
  sequences: setting("SEQUENCES"),
  contextSize: setting("LLM_CONTEXT_SIZE"),
  gpu: false,
  runtime,
  serverBinary: process.env.LLAMA_SERVER_BIN ?? findLlamaServer(process.env.LLAMA_BUILD_CACHE),
  logger: createLogger({ level: "error", format: "json", service: "llama-direct" }),
});
const character = (await loadCharacterCatalog()).default;

async function generate({ body }: GenerationCall): Promise<GenerationTiming> {
  const request = validateGenerationRequest("default", body);
  const job: GenerateTextJob = {
    requestId: "direct",
    keyId: "bench",
    model: "default",
    request,
    clientSampling: sentSamplingParams(body),
    acceptedAt: Date.now(),
  };
  const sampling = resolveSampling(job, character.sampling);
  const { turns } = await trimToContext(buildChatTurns(request, character), {
    contextTokens: engine.contextTokens,
    replyTokens: sampling.maxTokens,
    countPromptTokens: (all) => engine.countPromptTokens(all),
  });
  const started = nowMs();
  const result = await engine.generate({
    turns,
    sampling,
    signal: new AbortController().signal,
    onProgress: () => undefined,
  });
  return {
    ms: nowMs() - started,
    tokens: result.tokens,
    promptTokens: result.promptTokens,
    cachedTokens: result.cachedTokens,
  };
}

serveEngineCalls(generate, () => engine.close());
