// Module loader hooks for ts-source.thread-bootstrap.mjs: `./x.js` imports from a .ts file resolve
// to `./x.ts` (the NodeNext convention the sources follow), and .ts files are transpiled by swc
// the way jest's transform does (types stripped, nothing checked).
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { transform } from "@swc/core";

export async function resolve(specifier, context, nextResolve) {
  if (context.parentURL?.endsWith(".ts") && /^\.{1,2}\//.test(specifier) && specifier.endsWith(".js")) {
    const typescript = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL);
    if (existsSync(typescript)) return { url: typescript.href, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (!url.endsWith(".ts")) return nextLoad(url, context);
  const source = await readFile(new URL(url), "utf8");
  const { code } = await transform(source, {
    filename: fileURLToPath(url),
    sourceMaps: "inline",
    jsc: { target: "es2022", parser: { syntax: "typescript" } },
    module: { type: "es6" },
  });
  return { format: "module", source: code, shortCircuit: true };
}
