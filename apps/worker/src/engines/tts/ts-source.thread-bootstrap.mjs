// The module of a piscina thread whose real module is TypeScript source. Only used when the engine
// itself runs from .ts files (jest): Node 20 cannot import .ts, so the thread first registers
// loader hooks that transpile with swc (a dev dependency), then imports the real module and hands
// its task handler to piscina. Built code (dist/*.js) never comes here.
import { register } from "node:module";
import { workerData } from "piscina";

register("./ts-source.loader-hooks.mjs", import.meta.url);
const { default: handler } = await import(workerData.entry);
export default handler;
