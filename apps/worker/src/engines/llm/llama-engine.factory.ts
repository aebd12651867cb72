import type { Logger } from "@chorus/platform/logger";
import { LlamaLlmEngine } from "./llama.llm-engine.js";
import { LlamaServerLlmEngine } from "./llama-server.llm-engine.js";
import type { LlmEngine } from "./llm-engine.js";

/**
 * How the worker runs llama.cpp: `server`, llama.cpp's own llama-server as a child process (the
 * fast one: docs/engines.md); `in-process`, node-llama-cpp in the worker; `auto`, the server when a
 * build of it for this machine is at hand (`npm run llama:build`), else in process.
 */
/**
 * Where llama.cpp runs: its own llama-server as a child (server), node-llama-cpp in the worker, or the server when one
 * was built (auto).
 */
export const LLAMA_RUNTIMES = ["auto", "server", "in-process"] as const;
export type LlamaRuntime = (typeof LLAMA_RUNTIMES)[number];

export interface LlamaEngineSettings {
  modelPath: string;
  threads: number;
  /** Concurrent generations: one slot each. */
  sequences: number;
  /** Context tokens per slot (clamped to the model's training context). */
  contextSize: number;
  /** llama-server only: MiB of host memory for prompts kept beyond the slots (0: off; default: llama-server's own). */
  promptCacheMiB?: number;
  gpu: "auto" | false;
  runtime: LlamaRuntime;
  /** A llama-server binary for this machine, or null when there is none. */
  serverBinary: string | null;
  logger: Logger;
}

export interface LoadedLlamaEngine {
  engine: LlmEngine;
  /** What runs the model, for the start-up log: llama-server, or node-llama-cpp and which binary. */
  runs: "llama-server" | "in-process (local build)" | "in-process (prebuilt binary)";
}

export async function loadLlamaEngine(settings: LlamaEngineSettings): Promise<LoadedLlamaEngine> {
  const { modelPath, threads, sequences, contextSize, promptCacheMiB, gpu, serverBinary } = settings;
  if (settings.runtime === "server" && !serverBinary) {
    throw new Error(
      "LLAMA_RUNTIME=server needs a llama-server: run `npm run llama:build` once, or set LLAMA_SERVER_BIN to one",
    );
  }
  if (settings.runtime !== "in-process" && serverBinary) {
    const server = {
      binary: serverBinary,
      modelPath,
      threads,
      slots: sequences,
      contextPerSlot: contextSize,
      promptCacheMiB,
      gpu,
      logger: settings.logger,
    };
    const engine = await LlamaServerLlmEngine.start(server);
    return { engine, runs: "llama-server" };
  }
  const engine = await LlamaLlmEngine.load({ modelPath, threads, sequences, contextSize, gpu });
  return { engine, runs: engine.binary === "localBuild" ? "in-process (local build)" : "in-process (prebuilt binary)" };
}
