// Starts a worker thread whose module is TypeScript source. Only used when the engine itself runs
// from .ts files (jest): Node 20 cannot import .ts, so the thread first registers loader hooks that
// transpile with swc (a dev dependency), then imports the real module. Built code (dist/*.js)
// never comes here.
import { register } from "node:module";
import { workerData } from "node:worker_threads";

register("./ts-source.loader-hooks.mjs", import.meta.url);
await import(workerData.entry);
