import { availableParallelism } from "node:os";
import type { EnvSchema } from "./load-config.js";

/**
 * The settings of the gateway and the worker that `npm start` reads too: where each listens (it
 * probes them there) and the worker's llama.cpp threads (it splits the cores between its workers).
 * Part of GATEWAY_ENV and WORKER_ENV, defined once here so the launcher reads the apps' own rules
 * and defaults rather than parsing the variables again.
 */
export const GATEWAY_LISTEN_ENV = {
  PORT: { type: "integer", default: 3000, minimum: 0, maximum: 65535, description: "port the gateway listens on" },
  HOST: {
    type: "string",
    default: "127.0.0.1",
    description:
      "address the gateway binds: 127.0.0.1 is this machine only; 0.0.0.0 every interface (the Docker image and the manifests set it)",
  },
} as const satisfies EnvSchema;

export const WORKER_LAUNCH_ENV = {
  LLM_THREADS: {
    type: "integer",
    default: availableParallelism(),
    minimum: 1,
    description: "llama.cpp CPU threads (default: the cores available)",
  },
  WORKER_HTTP_PORT: {
    type: "integer",
    default: 9100,
    minimum: 0,
    maximum: 65535,
    description: "port of the worker's /healthz, /readyz and /metrics (0: any free port, logged at start)",
  },
  WORKER_HTTP_HOST: {
    type: "string",
    default: "127.0.0.1",
    description:
      "address the worker's health and metrics port binds: 127.0.0.1 is this machine only; 0.0.0.0 every interface (the Docker image and the manifests set it)",
  },
} as const satisfies EnvSchema;
