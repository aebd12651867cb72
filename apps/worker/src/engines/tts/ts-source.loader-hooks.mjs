// Module loader hooks for ts-source.thread-bootstrap.mjs: `./x.js` imports from a .ts file resolve
// to `./x.ts` (the NodeNext convention the sources follow), a workspace package (`@chorus/...`) to
// its sources as jest.config.ts maps it (src/x.ts for the dist/x.js its exports name, built or not),
// and .ts files are transpiled by swc the way jest's transform does (types stripped, nothing checked).
import { existsSync, realpathSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { transform } from "@swc/core";

export async function resolve(specifier, context, nextResolve) {
  if (context.parentURL?.endsWith(".ts") && /^\.{1,2}\//.test(specifier) && specifier.endsWith(".js")) {
    const typescript = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL);
    if (existsSync(typescript)) return { url: typescript.href, shortCircuit: true };
  }
  if (specifier.startsWith("@chorus/")) return workspaceSource(specifier, context, nextResolve);
  return nextResolve(specifier, context);
}

async function workspaceSource(specifier, context, nextResolve) {
  // Before a build the dist/ file is missing: the error still names the path the exports lead to.
  const built = await nextResolve(specifier, context).then(
    (resolved) => resolved.url,
    (error) => error.url ?? Promise.reject(error),
  );
  const source = built.replace(/\/dist\/(.*)\.js$/, "/src/$1.ts");
  if (source === built || !existsSync(new URL(source))) return nextResolve(specifier, context);
  return { url: pathToFileURL(realpathSync(new URL(source))).href, shortCircuit: true };
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
