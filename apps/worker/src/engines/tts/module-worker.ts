/**
 * What piscina needs to start a thread running the ES module at `script`. Built code passes `.js`
 * files and they run as they are; under jest the engine's own URL ends in `.ts`, and the thread
 * loads a bootstrap that teaches it TypeScript, then re-exports the module (see
 * ts-source.thread-bootstrap.mjs).
 */
export function threadModule(script: URL): { filename: string; workerData?: { entry: string } } {
  if (!script.pathname.endsWith(".ts")) return { filename: script.href };
  return {
    filename: new URL("./ts-source.thread-bootstrap.mjs", import.meta.url).href,
    workerData: { entry: script.href },
  };
}

/** The sibling module `name` (without extension) as a URL, with the extension this module runs from. */
export function siblingModule(name: string, base: string): URL {
  const extension = base.endsWith(".ts") ? ".ts" : ".js";
  return new URL(`./${name}${extension}`, base);
}
