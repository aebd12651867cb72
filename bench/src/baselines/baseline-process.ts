import type { Server } from "node:http";
import type { Express } from "express";

/** Settings the bench hands to its helper processes (kept apart from the apps' own config schemas). */
export interface BaselineEnv {
  redisUrl: string;
  prefix: string;
  port: number;
}

export function baselineEnv(env: NodeJS.ProcessEnv = process.env): BaselineEnv {
  const redisUrl = env.REDIS_URL;
  const prefix = env.REDIS_PREFIX;
  if (!redisUrl || !prefix) throw new Error("REDIS_URL and REDIS_PREFIX are required");
  return { redisUrl, prefix, port: Number(env.PORT ?? 0) };
}

/**
 * Runs `stop` once and exits when the bench asks (SIGTERM/SIGINT) or disappears (the IPC channel
 * closes when the parent dies), so a helper never outlives a crashed bench.
 */
export function exitWhenAsked(stop: () => Promise<void>): void {
  let stopping = false;
  const handle = () => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(1), 5000).unref();
    stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGTERM", handle);
  process.on("SIGINT", handle);
  process.on("disconnect", handle);
}

/** Listens on 127.0.0.1 only, adds /healthz for the bench's readiness check, closes on request. */
export function serveBaseline(app: Express, port: number, release: () => void | Promise<void>): Server {
  const server = app.listen(port, "127.0.0.1");
  exitWhenAsked(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await release();
  });
  return server;
}
