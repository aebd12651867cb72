import { spawnSync } from "node:child_process";
import { setPriority } from "node:os";
import { appScript, startNodeScript } from "@chorus/local-runtime";

/**
 * How `npm start` gets llama-server for this machine without waiting ~10 min for its build: with
 * LLAMA_RUNTIME=auto the workers start at once on node-llama-cpp's prebuilt binary while it builds
 * beside them at the lowest CPU priority, then restart onto it one by one.
 */
/** `npm run llama:build`: the worker package's build script. */
const BUILD_SCRIPT = appScript("worker", "build-llama");
/** build-llama.js --check's exit code when there is no llama-server for this machine yet. */
const ABSENT = 3;

/**
 * not-needed: no worker runs llama.cpp's server (an OpenAI-compatible engine only, the in-process
 * runtime, or the operator's own LLAMA_SERVER_BIN); present: built or restored before; first: the
 * workers need it to start (LLAMA_RUNTIME=server); meanwhile: build it while the workers run in process.
 */
export type LlamaServerPlan = "not-needed" | "present" | "first" | "meanwhile";

export function planLlamaServerBuild(env: NodeJS.ProcessEnv): LlamaServerPlan {
  if (env.LLM_ENGINE === "openai-compatible" && !env.MODELS_CONFIG) return "not-needed";
  if (env.LLAMA_RUNTIME === "in-process" || env.LLAMA_SERVER_BIN) return "not-needed";
  const check = spawnSync(process.execPath, [BUILD_SCRIPT, "--check"], { env, stdio: "inherit" });
  if (check.status === 0) return "present";
  if (check.status !== ABSENT) return "first"; // the check itself failed: the build says why
  return env.LLAMA_RUNTIME === "server" ? "first" : "meanwhile";
}

/** Builds (or restores) llama-server before anything starts; false when it could not be built. */
export function buildLlamaServerFirst(env: NodeJS.ProcessEnv): boolean {
  return spawnSync(process.execPath, [BUILD_SCRIPT], { env, stdio: "inherit" }).status === 0;
}

export interface BackgroundBuild {
  /** True once llama-server is built; false when the build failed or was stopped. */
  built: Promise<boolean>;
  /** Stops the build (build-llama stops its compilers and removes what it made). */
  stop(): Promise<void>;
}

/**
 * Builds llama-server in a child process at the lowest CPU priority, its progress lines in this
 * terminal. The child is in the launcher's process group, so a terminal's Ctrl-C stops it too, and
 * it stops itself when the launcher goes away (build-llama watches its parent).
 */
export function buildLlamaServerMeanwhile(env: NodeJS.ProcessEnv): BackgroundBuild {
  const child = startNodeScript("llama:build", BUILD_SCRIPT, { env, stdout: "inherit", stderr: "inherit" });
  // Niceness is inherited by what it starts (git, cmake, the compilers).
  setPriority(child.pid, 19);
  // A long grace: on SIGTERM the build stops its compilers and removes what it made.
  return { built: child.exited.then((code) => code === 0), stop: () => child.stop(60_000) };
}
