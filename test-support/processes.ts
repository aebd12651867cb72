import { startApp as startAppProcess, type RunningChild } from "@chorus/local-runtime";
import { FIXTURE_MODEL } from "./fixtures.js";

export { waitForOutput } from "./wait-for.js";

/**
 * A gateway or worker as its own process, as it runs in production (its compiled entry point, which
 * `npm test` builds first, and its Node flags), on the test model, its output kept for assertions.
 */
export function startApp(app: "gateway" | "worker", env: Record<string, string>): RunningChild {
  // One llama.cpp thread, as in every test (TEST_LLAMA_THREADS in worker.ts says why).
  const base = {
    PATH: process.env.PATH ?? "",
    LLM_MODEL: FIXTURE_MODEL,
    LLM_THREADS: "1",
    LOG_LEVEL: "info",
    LOG_FORMAT: "json",
    WORKER_HTTP_PORT: "0",
  };
  return startAppProcess(app, app, { ...base, ...env });
}
