import { parseArgs } from "node:util";
import { parseCommandLine } from "@chorus/platform";
import { ensureLlamaBuild } from "./engines/llm/llama-build.js";
import { ensureLlamaServerBuild } from "./engines/llm/llama-server.build.js";

/**
 * `npm run llama:build`: builds llama.cpp's llama-server for this machine, which the worker runs as
 * its llama.cpp engine (engines/llm/llama-server.build.ts), and gives node-llama-cpp, the in-process
 * fallback, a llama.cpp built for this machine too (engines/llm/llama-build.ts). Idempotent:
 * seconds when both are already there or cached.
 */
const USAGE = `usage: npm run llama:build [-- --cache DIR]

Builds llama.cpp for this CPU from the source node-llama-cpp ships (offline, needs cmake, g++ and
git): llama-server, which the worker runs as its llama.cpp engine (~10 min on 2 cores), and
node-llama-cpp's binding for the in-process engine (~6 min), or restores earlier builds from the
cache. Without them the worker runs llama.cpp in process on node-llama-cpp's prebuilt binary,
2-4x slower on CPU.

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
  const server = await ensureLlamaServerBuild({ log, ...(cacheRoot ? { cacheRoot } : {}) });
  if (server.outcome === "present") log(`llama-server for this machine is in place: ${server.path}`);
} catch (error) {
  process.stderr.write(`[llama:build] ${(error as Error).message}\n`);
  process.exit(1);
}
