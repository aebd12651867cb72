import { Worker } from "node:worker_threads";

/**
 * Starts a worker thread running the ES module at `script`. Built code passes `.js` files and they
 * run as they are; under jest the engine's own URL ends in `.ts`, and the thread goes through a
 * bootstrap that teaches that thread to load TypeScript (see ts-source.thread-bootstrap.mjs).
 */
export function spawnModuleWorker(script: URL): Worker {
  if (!script.pathname.endsWith(".ts")) return new Worker(script);
  return new Worker(new URL("./ts-source.thread-bootstrap.mjs", import.meta.url), { workerData: { entry: script.href } });
}

/** The sibling module `name` (without extension) as a URL, with the extension this module runs from. */
export function siblingModule(name: string, base: string): URL {
  const extension = base.endsWith(".ts") ? ".ts" : ".js";
  return new URL(`./${name}${extension}`, base);
}
