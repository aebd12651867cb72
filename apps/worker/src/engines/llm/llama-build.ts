import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { cp, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { cpus, homedir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * llama.cpp built for this machine from the source node-llama-cpp ships (offline): its prebuilt CPU
 * binaries lack OpenMP, which made the service 2-4x slower than llama.cpp's own server on 2 cores
 * (docs/engines.md). A build (~6 min) is kept in a cache outside the checkout, keyed by the
 * node-llama-cpp version and the CPU, and copied into node_modules by later clones.
 */
export type LlamaBuildOutcome = "present" | "restored" | "built" | "absent";

export interface LlamaBuildOptions {
  /** Where finished builds are kept across clones; default ~/.cache/chorus/llama-builds. */
  cacheRoot?: string | undefined;
  log: (line: string) => void;
  /** False: only restore a cached build, never compile one ("absent" when there is none). Default true. */
  build?: boolean;
}

/** The folder node-llama-cpp gives a CPU-only build for this platform (it names it from the build options). */
const BUILD_FOLDER = `${process.platform}-${process.arch}`;
/** Written beside a build we placed, so a node_modules moved to another CPU is rebuilt, not crashed. */
const MARKER = "chorus-build.json";

export function nodeLlamaCppDir(): string {
  return dirname(dirname(fileURLToPath(import.meta.resolve("node-llama-cpp"))));
}

/** A key that changes with anything that makes a build unfit: node-llama-cpp's version, the CPU. */
export function buildKey(): string {
  const { version } = JSON.parse(readFileSync(join(nodeLlamaCppDir(), "package.json"), "utf8")) as { version: string };
  const cpu = existsSync("/proc/cpuinfo")
    ? cpuIdentity(readFileSync("/proc/cpuinfo", "utf8"))
    : `${process.arch}|${cpus()[0]?.model ?? ""}`;
  return `${version}-${createHash("sha256").update(cpu).digest("hex").slice(0, 12)}`;
}

/**
 * The CPU's model and instruction-set extensions: what a build with GGML_NATIVE depends on. x86
 * names them "model name" and "flags"; ARM "CPU implementer", "CPU part" and "Features".
 */
export function cpuIdentity(cpuinfo: string): string {
  const first = (field: string) => cpuinfo.match(new RegExp(`^${field}\\s*:\\s*(.*)$`, "m"))?.[1]?.trim() ?? "";
  return [process.arch, ...["model name", "flags", "CPU implementer", "CPU part", "Features"].map(first)].join("|");
}

function localBuildDir(): string {
  return join(nodeLlamaCppDir(), "llama", "localBuilds", BUILD_FOLDER);
}

/**
 * True when node-llama-cpp will load a build made for this machine (checked as getLlama checks it).
 * A build without our marker was made by hand (`node-llama-cpp source build`) and is taken as it is.
 */
export async function hasLocalBuild(key = buildKey()): Promise<boolean> {
  const dir = localBuildDir();
  if (!existsSync(join(dir, "buildDone.status")) || !existsSync(join(dir, "Release", "llama-addon.node"))) return false;
  const marker = await readFile(join(dir, MARKER), "utf8").catch(() => "");
  return marker === "" || (JSON.parse(marker) as { key?: string }).key === key;
}

export function missingBuildTools(env: NodeJS.ProcessEnv = process.env): string[] {
  const onPath = (name: string) =>
    (env.PATH ?? "").split(delimiter).some((dir) => dir !== "" && existsSync(join(dir, name)));
  const missing = ["cmake", "git"].filter((tool) => !onPath(tool));
  return onPath("c++") || onPath("g++") || onPath("clang++") ? missing : [...missing, "a C++ compiler (g++)"];
}

/** Makes sure node-llama-cpp has a build for this machine: already there, from the cache, or built now. */
export async function ensureLlamaBuild(options: LlamaBuildOptions): Promise<LlamaBuildOutcome> {
  const key = buildKey();
  if (await hasLocalBuild(key)) return "present";
  const cached = join(options.cacheRoot ?? join(homedir(), ".cache", "chorus", "llama-builds"), key);
  if (existsSync(join(cached, "buildDone.status"))) {
    await place(cached, key);
    options.log(`llama.cpp: using the build for this machine from ${cached}`);
    return "restored";
  }
  if (options.build === false) return "absent";
  const missing = missingBuildTools();
  if (missing.length > 0)
    throw new Error(
      `building llama.cpp for this machine needs ${missing.join(" and ")} (Debian: apt-get install cmake g++ git)`,
    );
  options.log(
    "llama.cpp: building it for this machine from the source node-llama-cpp ships (once; ~6 min on 2 cores)...",
  );
  await runSourceBuild();
  // Into a fresh folder beside the cache entry, then renamed: a build half copied is never found.
  const staging = `${cached}.${process.pid}.tmp`;
  await copyBuild(localBuildDir(), staging);
  await rm(cached, { recursive: true, force: true });
  await rename(staging, cached);
  await writeFile(join(localBuildDir(), MARKER), JSON.stringify({ key }));
  options.log(`llama.cpp: built; kept in ${cached} for later clones`);
  return "built";
}

async function place(cached: string, key: string): Promise<void> {
  await copyBuild(cached, localBuildDir());
  await writeFile(join(localBuildDir(), MARKER), JSON.stringify({ key }));
}

/** The files node-llama-cpp loads a local build from (`Release/`), and its "build done" mark. */
async function copyBuild(from: string, to: string): Promise<void> {
  await rm(to, { recursive: true, force: true });
  await mkdir(to, { recursive: true });
  await cp(join(from, "Release"), join(to, "Release"), { recursive: true });
  await writeFile(join(to, "buildDone.status"), "");
}

/** node-llama-cpp's own `source download`: clones its bundled llama.cpp (no network) and compiles it. */
function runSourceBuild(): Promise<void> {
  const cli = join(nodeLlamaCppDir(), "dist", "cli", "cli.js");
  const args = [cli, "source", "download", "--gpu", "false", "--noUsageExample"];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "inherit", "inherit"] });
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`node-llama-cpp source build exited with ${String(code)}`)),
    );
  });
}
