import { parseArgs } from "node:util";
import { parseCommandLine } from "@chorus/platform/process";
import { ensureLlamaBuild } from "./engines/llm/llama-build.js";
import { ensureLlamaServerBuild, findLlamaServer } from "./engines/llm/llama-server.build.js";

/**
 * `npm run llama:build`: builds llama.cpp's llama-server for this machine, which the worker runs as
 * its llama.cpp engine (engines/llm/llama-server.build.ts). node-llama-cpp's binding, the in-process
 * engine, is built only when asked (--in-process): the worker runs it only where llama-server is not,
 * and compiling it too doubled a first start. Idempotent: seconds when the builds are there or cached.
 */
const USAGE = `usage: npm run llama:build [-- --cache DIR] [--in-process] [--check]

Builds llama.cpp's llama-server for this CPU from the source node-llama-cpp ships (offline, needs
cmake, g++ and git; ~10 min on 2 cores, saying how far it is every 30 s), which the worker runs as
its llama.cpp engine, or restores an earlier build from the cache. One build at a time per cache: a
second one waits for the first. Stopping this command (or the npm start that runs it) stops the
compilers too.

  --cache DIR     where builds are kept across clones (default ~/.cache/chorus/llama-builds;
                  env LLAMA_BUILD_CACHE)
  --in-process    also build node-llama-cpp's binding for this machine (~6 min), for
                  LLAMA_RUNTIME=in-process; without it the in-process engine runs node-llama-cpp's
                  prebuilt binary, 2-4x slower on CPU (a cached build is restored either way)
  --check         build nothing: exit 0 when llama-server for this machine is in place, 3 when not
  -h, --help      this text
`;

/** --check's answer when there is no llama-server for this machine yet (1 stays a failed build). */
const ABSENT = 3;

const { values } = parseCommandLine(USAGE, (args) =>
  parseArgs({
    args,
    options: {
      cache: { type: "string" },
      "in-process": { type: "boolean", default: false },
      check: { type: "boolean", default: false },
    },
  }),
);
const log = (line: string) => process.stdout.write(`[llama:build] ${line}\n`);

/** Stopped by a signal, or by the launcher going away (a killed npm start must not leave compilers running). */
function stopSignal(): AbortSignal {
  const stop = new AbortController();
  for (const name of ["SIGTERM", "SIGINT", "SIGHUP"] as const)
    process.once(name, () => stop.abort(new Error(`stopped (${name})`)));
  const launcher = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid !== launcher) stop.abort(new Error("stopped: the command that started the build has exited"));
  }, 1000);
  watch.unref();
  return stop.signal;
}

const cacheRoot = values.cache ?? process.env.LLAMA_BUILD_CACHE;
if (values.check) process.exit(findLlamaServer(cacheRoot) ? 0 : ABSENT);
try {
  const signal = stopSignal();
  const binding = await ensureLlamaBuild({ log, cacheRoot, build: values["in-process"] });
  if (binding === "present") log("llama.cpp for the in-process engine is in place");
  const server = await ensureLlamaServerBuild({ log, cacheRoot, signal });
  if (server.outcome === "present") log(`llama-server for this machine is in place: ${server.path}`);
  process.exit(0);
} catch (error) {
  process.stderr.write(`[llama:build] ${(error as Error).message}\n`);
  process.exit(1);
}
