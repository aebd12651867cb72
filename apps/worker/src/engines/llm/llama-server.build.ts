import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, rename, rm } from "node:fs/promises";
import { availableParallelism, homedir } from "node:os";
import { dirname, join } from "node:path";
import { buildKey, missingBuildTools, nodeLlamaCppDir } from "./llama-build.js";

/**
 * llama.cpp's own `llama-server`, built on this machine from the very source node-llama-cpp ships
 * (its git bundle: offline, the same commit as the in-process engine), with this CPU's instruction
 * set and OpenMP. The worker runs it as its default llama.cpp engine (llama-server.process.ts):
 * it samples in the loop that decodes and batches every slot's step, which node-llama-cpp's
 * per-token JavaScript path cannot match (docs/engines.md). Built as one static binary (~10 min on
 * 2 cores), kept beside the node-llama-cpp build under the same key (version and CPU).
 */
export const DEFAULT_LLAMA_BUILD_CACHE = join(homedir(), ".cache", "chorus", "llama-builds");

const CMAKE_OPTIONS = [
  "-DCMAKE_BUILD_TYPE=Release",
  "-DGGML_NATIVE=ON",
  "-DBUILD_SHARED_LIBS=OFF",
  "-DLLAMA_CURL=OFF",
  "-DLLAMA_OPENSSL=OFF",
  "-DLLAMA_BUILD_TESTS=OFF",
  "-DLLAMA_BUILD_EXAMPLES=OFF",
  "-DLLAMA_USE_PREBUILT_UI=OFF",
];

/** Where the binary for this machine lives (or will): `<cache>/<version>-<cpu>-server/llama-server`. */
export function llamaServerPath(cacheRoot = DEFAULT_LLAMA_BUILD_CACHE, key = buildKey()): string {
  return join(cacheRoot, `${key}-server`, "llama-server");
}

/** The binary for this machine when one was built, else null. */
export function findLlamaServer(cacheRoot = DEFAULT_LLAMA_BUILD_CACHE): string | null {
  const path = llamaServerPath(cacheRoot);
  return existsSync(path) ? path : null;
}

/** node-llama-cpp's git bundle of the llama.cpp source it was built from. */
export function llamaSourceBundle(): string {
  return join(nodeLlamaCppDir(), "llama", "gitRelease.bundle");
}

/** What a build of llama-server needs and this machine lacks (empty when it can be built). */
export function missingForLlamaServerBuild(): string[] {
  const bundle = llamaSourceBundle();
  return [...missingBuildTools(), ...(existsSync(bundle) ? [] : [`node-llama-cpp's llama.cpp source (${bundle})`])];
}

export interface LlamaServerBuildOptions {
  cacheRoot?: string;
  log: (line: string) => void;
}

/** Builds llama-server for this machine unless the cache has it; returns its path. */
export async function ensureLlamaServerBuild(options: LlamaServerBuildOptions): Promise<{ path: string; outcome: "present" | "built" }> {
  const cacheRoot = options.cacheRoot ?? DEFAULT_LLAMA_BUILD_CACHE;
  const path = llamaServerPath(cacheRoot);
  if (existsSync(path)) return { path, outcome: "present" };
  const missing = missingForLlamaServerBuild();
  if (missing.length > 0) throw new Error(`building llama-server needs ${missing.join(" and ")} (Debian: apt-get install cmake g++ git)`);
  options.log("llama-server: building it for this machine from the source node-llama-cpp ships (once; ~10 min on 2 cores)...");
  // Built in a scratch folder beside the cache entry, then renamed: a half-built binary is never found.
  const scratch = join(cacheRoot, `.llama-server.${process.pid}.tmp`);
  await rm(scratch, { recursive: true, force: true });
  try {
    await run("git", ["clone", "-q", llamaSourceBundle(), join(scratch, "src")]);
    await run("cmake", ["-S", join(scratch, "src"), "-B", join(scratch, "build"), ...CMAKE_OPTIONS]);
    await run("cmake", ["--build", join(scratch, "build"), "--target", "llama-server", "-j", String(availableParallelism())]);
    await mkdir(join(scratch, "out"));
    await copyFile(join(scratch, "build", "bin", "llama-server"), join(scratch, "out", "llama-server"));
    await rm(dirname(path), { recursive: true, force: true });
    await rename(join(scratch, "out"), dirname(path));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  options.log(`llama-server: built; kept in ${path}`);
  return { path, outcome: "built" };
}

/** Runs a build step; its output is shown only when it fails (the last 8 KB). */
function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000));
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(" ")} exited with ${String(code)}:\n${output}`))));
  });
}
