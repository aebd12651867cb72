import type { ModelId } from "@chorus/contracts";
import type { Logger } from "@chorus/platform/logger";
import type { Character, CharacterCatalog } from "../characters/character-catalog.js";
import { loadLlamaEngine, type LlamaRuntime, type LoadedLlamaEngine } from "../engines/llm/llama-engine.factory.js";
import type { LlmEngine } from "../engines/llm/llm-engine.js";
import { resolveModel } from "../engines/llm/model-resolver.js";
import { OpenAiCompatibleLlmEngine } from "../engines/llm/openai-compatible.llm-engine.js";
import { STOP_SEQUENCES } from "../engines/llm/stop-sequences.js";
import type { EngineSpec, ModelsConfig } from "./models-config.js";

/** What serves one public model id: its engine and its character (with configured overrides). */
export interface ServedModel {
  engine: LlmEngine;
  character: Character;
}

export interface EngineRuntime {
  threads: number;
  sequences: number;
  contextSize: number;
  /** llama-server's host-memory prompt cache (MiB; 0: off). */
  promptCacheMiB: number;
  gpu: "auto" | false;
  llamaRuntime: LlamaRuntime;
  /** A llama-server binary for this machine (LLAMA_SERVER_BIN, or `npm run llama:build`'s), or null. */
  llamaServerBinary: string | null;
  modelsDir: string;
  env: NodeJS.ProcessEnv;
  logger: Logger;
}

async function createEngine(name: string, spec: EngineSpec, runtime: EngineRuntime): Promise<LlmEngine> {
  if (spec.type === "openai-compatible") {
    const apiKey = spec.apiKeyEnv ? runtime.env[spec.apiKeyEnv] : undefined;
    runtime.logger.info("engine ready", { engine: name, type: spec.type, baseUrl: spec.baseUrl, model: spec.model });
    return new OpenAiCompatibleLlmEngine({ ...spec, ...(apiKey ? { apiKey } : {}), stop: STOP_SEQUENCES });
  }
  const modelPath = await resolveModel({
    model: spec.model,
    directory: runtime.modelsDir,
    showProgress: process.stderr.isTTY,
  });
  const { threads, sequences, contextSize, promptCacheMiB, gpu, logger } = runtime;
  const settings = {
    modelPath,
    threads,
    sequences,
    contextSize,
    promptCacheMiB,
    gpu,
    runtime: runtime.llamaRuntime,
    serverBinary: runtime.llamaServerBinary,
    logger,
  };
  const loaded = await loadLlamaEngine(settings).catch((error: unknown) => {
    const setting = `LLM_MODEL, or the model of engine "${name}" when MODELS_CONFIG is set`;
    throw new Error(
      `could not load ${modelPath} as a GGUF model (${setting}): ${error instanceof Error ? error.message : String(error)}`,
    );
  });
  logger.info("engine ready", {
    engine: name,
    type: spec.type,
    modelPath,
    threads,
    sequences,
    contextTokens: loaded.engine.contextTokens,
    runs: loaded.runs,
  });
  warnOfSlowLlama(loaded, runtime);
  return loaded.engine;
}

/** What costs llama.cpp 1.5-4x on CPU when missed (docs/engines.md). */
function warnOfSlowLlama({ runs }: LoadedLlamaEngine, runtime: EngineRuntime): void {
  if (runs === "llama-server") return;
  if (runtime.llamaRuntime === "auto" && runtime.env.LLAMA_SERVER_BUILDING === "1") {
    // Set by npm start, which builds llama-server beside this worker and then restarts it (llama-server-build.ts in
    // apps/cli).
    runtime.logger.info(
      "llama.cpp runs node-llama-cpp's prebuilt binary (slower) while npm start builds llama-server for this machine; this worker restarts onto it once built",
    );
    return;
  }
  if (runtime.llamaRuntime === "auto")
    runtime.logger.warn(
      "llama.cpp runs in the worker process, not as llama-server (1.3-2x slower): run `npm run llama:build` once (it builds llama-server for this machine)",
    );
  if (runs === "in-process (prebuilt binary)") {
    const build =
      "run `npm run llama:build -- --in-process` once (it builds node-llama-cpp's binding for this machine)";
    runtime.logger.warn(
      `llama.cpp runs node-llama-cpp's prebuilt binary, 2-4x slower on CPU than one built for this machine: ${build}`,
    );
  }
  if (runtime.env.UV_THREADPOOL_SIZE === undefined) {
    runtime.logger.warn(
      "UV_THREADPOOL_SIZE is not set: start the worker with UV_THREADPOOL_SIZE=1 (as npm start and the image do), or in-process generation runs 1.5-2x slower",
    );
  }
}

export interface ModelRegistry {
  modelFor: (model: ModelId) => ServedModel;
  close(): Promise<void>;
}

/** Builds each configured engine once (models sharing an engine share its loaded weights). */
export async function createModelRegistry(
  config: ModelsConfig,
  characters: CharacterCatalog,
  runtime: EngineRuntime,
): Promise<ModelRegistry> {
  const engines = new Map<string, LlmEngine>();
  for (const [name, spec] of Object.entries(config.engines)) {
    if (Object.values(config.models).some((m) => m.engine === name))
      engines.set(name, await createEngine(name, spec, runtime));
  }
  const served = new Map<ModelId, ServedModel>();
  for (const [id, settings] of Object.entries(config.models) as [ModelId, ModelsConfig["models"][ModelId]][]) {
    const base = characters[id];
    const character: Character = {
      ...base,
      persona: settings.persona ?? base.persona,
      sampling: { ...base.sampling, ...settings.sampling },
    };
    served.set(id, { engine: engines.get(settings.engine) as LlmEngine, character });
  }
  return {
    modelFor: (model) => served.get(model) as ServedModel,
    close: async () => {
      await Promise.all([...engines.values()].map((e) => e.close()));
    },
  };
}
