import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/** Paths resolved from this file's place in bench/dist/, so the bench runs from any directory. */
const fromHere = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));

export const REPO_ROOT = fromHere("../../");

/** A compiled script of this package, e.g. `baselines/minimal-enqueue.server.js`. */
export function benchScript(relative: string): string {
  return fromHere(`./${relative}`);
}

/** autocannon's command-line entry point (it prints one JSON result with --json). */
export function autocannonCli(): string {
  return createRequire(import.meta.url).resolve("autocannon/autocannon.js");
}

/** The tiny real model the tests use; the bench's worker loads it, and the generation rows measure it. */
export const DEFAULT_BENCH_MODEL = fromHere("../../fixtures/models/stories260K-chatml.gguf");
