import { existsSync } from "node:fs";
import { copyFile, mkdir, rename, rm } from "node:fs/promises";
import { availableParallelism, homedir } from "node:os";
import { dirname, join } from "node:path";
import { removeAbandonedScratch, withBuildLock } from "./build-lock.js";
import { progressLog, runBuildStep } from "./build-steps.js";
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
export function missingForLlamaServerBuild(env: NodeJS.ProcessEnv = process.env): string[] {
  const bundle = llamaSourceBundle();
  return [...missingBuildTools(env), ...(existsSync(bundle) ? [] : [`node-llama-cpp's llama.cpp source (${bundle})`])];
}

export interface LlamaServerBuildOptions {
  cacheRoot?: string | undefined;
  log: (line: string) => void;
  /** Stops the build (its compilers too), removes what it made and rejects. */
  signal?: AbortSignal | undefined;
  /** How often the build says how far it is (default 30 s). */
  progressIntervalMs?: number | undefined;
  /** The environment the toolchain is found in and runs in; default this process's. */
  env?: NodeJS.ProcessEnv | undefined;
}

/**
 * Builds llama-server for this machine unless the cache has it; returns its path. One build at a
 * time per cache: a second caller waits for the first and takes its binary.
 */
export async function ensureLlamaServerBuild(
  options: LlamaServerBuildOptions,
): Promise<{ path: string; outcome: "present" | "built" }> {
  const cacheRoot = options.cacheRoot ?? DEFAULT_LLAMA_BUILD_CACHE;
  const path = llamaServerPath(cacheRoot);
  if (existsSync(path)) return { path, outcome: "present" };
  const missing = missingForLlamaServerBuild(options.env);
  if (missing.length > 0)
    throw new Error(`building llama-server needs ${missing.join(" and ")} (Debian: apt-get install cmake g++ git)`);
  await mkdir(cacheRoot, { recursive: true });
  return withBuildLock(
    cacheRoot,
    "llama-server",
    options.log,
    async () => {
      if (existsSync(path)) return { path, outcome: "present" as const }; // built by the one we waited for
      await removeAbandonedScratch(cacheRoot, "llama-server");
      await buildInto(path, cacheRoot, options);
      return { path, outcome: "built" as const };
    },
    options.signal,
  );
}

async function buildInto(path: string, cacheRoot: string, options: LlamaServerBuildOptions): Promise<void> {
  const { log, signal, env } = options;
  log("llama-server: building it for this machine from the source node-llama-cpp ships (once; ~10 min on 2 cores)...");
  const started = Date.now();
  // Built in a scratch folder beside the cache entry, then renamed: a half-built binary is never found.
  const scratch = join(cacheRoot, `.llama-server.${process.pid}.tmp`);
  await rm(scratch, { recursive: true, force: true });
  try {
    await runBuildStep("git", ["clone", "-q", llamaSourceBundle(), join(scratch, "src")], { signal, env });
    await runBuildStep("cmake", ["-S", join(scratch, "src"), "-B", join(scratch, "build"), ...CMAKE_OPTIONS], {
      signal,
      env,
    });
    const onProgress = progressLog("llama-server", log, options.progressIntervalMs ?? 30_000);
    await runBuildStep(
      "cmake",
      ["--build", join(scratch, "build"), "--target", "llama-server", "-j", String(availableParallelism())],
      { signal, onProgress, env },
    );
    await mkdir(join(scratch, "out"));
    await copyFile(join(scratch, "build", "bin", "llama-server"), join(scratch, "out", "llama-server"));
    await rm(dirname(path), { recursive: true, force: true });
    await rename(join(scratch, "out"), dirname(path));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  log(`llama-server: built in ${Math.round((Date.now() - started) / 60_000)} min; kept in ${path}`);
}
