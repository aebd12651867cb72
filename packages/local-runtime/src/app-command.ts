import { createRequire } from "node:module";
import { startNodeScript, type ChildOptions, type RunningChild } from "./child-process.js";

export type AppName = "gateway" | "worker";

/**
 * The Node flags each app runs with, wherever it is started: `npm start`, `npm run gateway`
 * (package.json), the Docker image (Dockerfile CMD), the tests' processes and the bench. Tests
 * check that package.json (app-command.test.ts) and the Dockerfile (deploy/test) say the same.
 *
 * The gateway allocates tens of KB per request (Express routing, ioredis commands, the rate
 * limiter) and keeps the objects of every request in flight alive until its Redis replies arrive;
 * with V8's default young generation each scavenge copies that live set, many times a second under
 * load. A 64 MB semi-space makes scavenges several times rarer: ~12 % less gateway CPU per status
 * poll (two gateways side by side under the bench's status load, 14 interleaved rounds), for tens of
 * MB more resident memory under load (the bench's memory row). The worker's time goes to the
 * engines, not to V8's young generation.
 */
export const APP_NODE_FLAGS: Record<AppName, readonly string[]> = {
  gateway: ["--max-semi-space-size=64"],
  worker: [],
};

/**
 * Environment each app runs with unless the operator sets the variable: like the flags, applied by
 * every launcher (package.json's npm scripts and the Dockerfile say the same; tests check).
 *
 * The worker: node-llama-cpp runs each llama.cpp decode step on a libuv pool thread, and llama.cpp's
 * OpenMP keeps one team of compute threads per calling thread. With libuv's default four pool
 * threads, successive steps land on different callers whose teams have gone to sleep, and each step
 * pays for waking them; one pool thread made generation 1.5-2x faster on 2 cores (docs/engines.md).
 * libuv sizes its pool at first use, which for an ES module is the loading of its own source, so
 * this has to be in the environment before Node starts. The price: the worker's other pool users
 * (file reads, DNS lookups on a reconnect to Redis or a remote engine, zlib) wait behind a decode
 * step in progress, up to the length of a long prompt's evaluation; the worker makes few such calls.
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
