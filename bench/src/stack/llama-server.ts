import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { missingBuildTools, nodeLlamaCppDir } from "../worker-dist/llm-engine.js";
import { startCommand, whileAlive, type BenchChild } from "./child-processes.js";
import { freePort, waitForHttp } from "./net.js";

/**
 * The anchor of the inference rows: llama.cpp's own `llama-server`, built once from the very source
 * node-llama-cpp ships (its git bundle, so offline and the same commit as the worker's engine),
 * with the same native-CPU and OpenMP settings as the worker's local build, and kept in a cache
 * keyed by that commit (a bench-only binary: on another CPU, delete the cache to rebuild it).
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

function run(command: string, args: string[], cwd?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000)));
    child.stderr.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000)));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(output) : reject(new Error(`${command} ${args.join(" ")} exited with ${String(code)}:\n${output}`))));
  });
}

/** The cached binary, or a build of it now (~10-20 min on 2 cores), or why it cannot be had here. */
export async function ensureLlamaServer(log: (line: string) => void, cacheRoot = join(homedir(), ".cache", "chorus", "llama-server")): Promise<LlamaServerBinary> {
  const bundle = join(nodeLlamaCppDir(), "llama", "gitRelease.bundle");
  const missing = [...missingBuildTools(), ...(existsSync(bundle) ? [] : [`node-llama-cpp's llama.cpp source (${bundle})`])];
  const canReadBundle = existsSync(bundle) && !missing.includes("git");
  const commit = canReadBundle ? (await run("git", ["bundle", "list-heads", bundle])).trim().slice(0, 7) : "";
  const source = join(cacheRoot, `${commit}-src`);
  const binary = join(source, "build", "bin", "llama-server");
  if (commit && existsSync(binary)) return { path: binary, commit };
  if (missing.length > 0) return { skipped: `llama-server cannot be built here: needs ${missing.join(" and ")}` };
  log(`building llama-server from node-llama-cpp's bundled llama.cpp ${commit} into ${source} (once; 10-20 min on 2 cores)`);
  if (!existsSync(join(source, "CMakeLists.txt"))) await run("git", ["clone", "-q", bundle, source]);
  const options = ["-DGGML_NATIVE=ON", "-DLLAMA_CURL=OFF", "-DLLAMA_BUILD_TESTS=OFF", "-DCMAKE_BUILD_TYPE=Release"];
  await run("cmake", ["-S", source, "-B", join(source, "build"), ...options]);
  await run("cmake", ["--build", join(source, "build"), "--target", "llama-server", "-j", "2"]);
  return { path: binary, commit };
}

export async function startLlamaServer(binary: string, settings: LlamaServerSettings): Promise<LlamaServer> {
  const port = await freePort();
  const args = ["-m", settings.model, "-t", String(settings.threads), "-np", String(settings.slots)];
  args.push("-c", String(settings.contextPerSlot * settings.slots), "--host", "127.0.0.1", "--port", String(port));
  const child = startCommand("llama-server", binary, args);
  const url = `http://127.0.0.1:${port}`;
  if (!(await whileAlive(child, waitForHttp(`${url}/health`, 60_000)))) {
    await child.stop(1000);
    throw new Error(`llama-server did not become healthy on ${url}:\n${child.stderrTail()}`);
  }
  return { url, child, stop: () => child.stop(5000) };
}
