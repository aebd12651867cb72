import { parseArgs } from "node:util";
import { parseCommandLine } from "@chorus/platform";
import { ensureLlamaBuild } from "./engines/llm/llama-build.js";

/**
 * `npm run llama:build`: gives node-llama-cpp a llama.cpp built for this machine (see
 * engines/llm/llama-build.ts). Idempotent: seconds when a build is already there or cached.
 */
const USAGE = `usage: npm run llama:build [-- --cache DIR]

Builds llama.cpp for this CPU from the source node-llama-cpp ships (offline, ~6 min on 2 cores,
needs cmake, g++ and git), or restores an earlier build from the cache. The worker's llama.cpp engine
uses it when present; without it, node-llama-cpp's prebuilt binary is 2-4x slower on CPU.

  --cache DIR   where builds are kept across clones (default ~/.cache/chorus/llama-builds;
                env LLAMA_BUILD_CACHE)
  -h, --help    this text
`;

const { values } = parseCommandLine(USAGE, (args) => parseArgs({ args, options: { cache: { type: "string" } } }));
const log = (line: string) => process.stdout.write(`[llama:build] ${line}\n`);
try {
  const cacheRoot = values.cache ?? process.env.LLAMA_BUILD_CACHE;
  const outcome = await ensureLlamaBuild({ log, ...(cacheRoot ? { cacheRoot } : {}) });
  if (outcome === "present") log("llama.cpp for this machine is in place");
} catch (error) {
  process.stderr.write(`[llama:build] ${(error as Error).message}\n`);
  process.exit(1);
}
