import { execFileSync } from "node:child_process";
import { cpuHasAmx, ensureLlamaServerBuild, llamaSourceBundle, missingForLlamaServerBuild } from "@chorus/worker/llm";
import { startCommand, whileAlive, type BenchChild } from "./child-processes.js";
import { freePort, waitForHttp } from "./net.js";

/**
 * The anchor of the inference rows: llama.cpp's own `llama-server`, the very binary the worker runs
 * as its llama.cpp engine (`npm run llama:build` builds it from the source node-llama-cpp ships:
 * offline, the same commit, native CPU and OpenMP), started here by hand with llama-server's own
 * defaults, as a user of llama.cpp would run it.
 */
export type LlamaServerBinary = { path: string; commit: string } | { skipped: string };

export interface LlamaServerSettings {
  model: string;
  threads: number;
  /** Parallel slots (-np); each gets `contextPerSlot` tokens. */
  slots: number;
  contextPerSlot: number;
}

export interface LlamaServer {
  url: string;
  child: BenchChild;
  stop(): Promise<void>;
}

/** The worker's llama-server build (built now if missing, ~10 min on 2 cores), or why it cannot be had here. */
export async function ensureLlamaServer(log: (line: string) => void): Promise<LlamaServerBinary> {
  const missing = missingForLlamaServerBuild();
  if (missing.length > 0) return { skipped: `llama-server cannot be built here: needs ${missing.join(" and ")}` };
  const commit = execFileSync("git", ["bundle", "list-heads", llamaSourceBundle()], { encoding: "utf8" })
    .trim()
    .slice(0, 7);
  const { path } = await ensureLlamaServerBuild({
    log,
    ...(process.env.LLAMA_BUILD_CACHE ? { cacheRoot: process.env.LLAMA_BUILD_CACHE } : {}),
  });
  return { path, commit };
}

export async function startLlamaServer(binary: string, settings: LlamaServerSettings): Promise<LlamaServer> {
  const port = await freePort();
  const args = ["-m", settings.model, "-t", String(settings.threads), "-np", String(settings.slots)];
  args.push("-c", String(settings.contextPerSlot * settings.slots), "--host", "127.0.0.1", "--port", String(port));
  // Its defaults, but for the one setting without which it cannot run here at all (as the worker's).
  if (cpuHasAmx()) args.push("--no-repack");
  const child = startCommand("llama-server", binary, args);
  const url = `http://127.0.0.1:${port}`;
  if (!(await whileAlive(child, waitForHttp(`${url}/health`, 60_000)))) {
    await child.stop(1000);
    throw new Error(`llama-server did not become healthy on ${url}:\n${child.output()}`);
  }
  return { url, child, stop: () => child.stop(5000) };
}
