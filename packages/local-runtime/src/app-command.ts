import { createRequire } from "node:module";
import { startNodeScript, type ChildOptions, type RunningChild } from "./child-process.js";

export type AppName = "gateway" | "worker";

/**
 * The Node flags each app runs with, wherever it is started (npm scripts, the Dockerfile's CMD, the
 * tests, the bench; tests check they agree). The gateway's larger V8 young generation makes
 * scavenges of its per-request garbage rarer: ~12 % less CPU per status poll (docs/performance.md).
 */
export const APP_NODE_FLAGS: Record<AppName, readonly string[]> = {
  gateway: ["--max-semi-space-size=64"],
  worker: [],
};

/**
 * Environment each app runs with unless the operator sets it, applied by every launcher. The
 * worker's one libuv pool thread keeps llama.cpp's OpenMP team warm between decode steps (1.5-2x
 * faster on 2 cores; docs/engines.md); libuv sizes its pool before any module runs, so it must be
 * in the environment at start.
 */
export const APP_ENV: Record<AppName, Readonly<Record<string, string>>> = {
  gateway: {},
  worker: { UV_THREADPOOL_SIZE: "1" },
};

/** `env` with the app's defaults added where it does not set them. */
export function appEnv(app: AppName, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...APP_ENV[app], ...env };
}

/**
 * This package runs the apps of this checkout as processes and never imports them, so it does not
 * depend on them (an image that carries the keys CLI gets no worker): it finds their compiled
 * scripts through the workspace links npm makes for every package of the checkout.
 */
const resolve = createRequire(import.meta.url).resolve;

/** A compiled script an app's package exports (`./main`, `./build-llama`): its path. */
export function appScript(app: AppName, script: string): string {
  return resolve(`@chorus/${app}/${script}`);
}

/** The compiled entry point of an app (what `npm run gateway` / `npm run worker` run). */
export function appEntryPoint(app: AppName): string {
  return appScript(app, "main");
}

/** The arguments after `node` that start an app as it runs in production. */
export function appNodeArgs(app: AppName): string[] {
  return [...APP_NODE_FLAGS[app], appEntryPoint(app)];
}

/** Starts an app as it runs in production: its Node flags, its compiled entry point, `env` over its defaults. */
export function startApp(
  app: AppName,
  label: string,
  env: NodeJS.ProcessEnv,
  options: Omit<ChildOptions, "env" | "args"> = {},
): RunningChild {
  return startNodeScript(label, appEntryPoint(app), {
    ...options,
    env: appEnv(app, env),
    nodeArgs: APP_NODE_FLAGS[app],
  });
}
