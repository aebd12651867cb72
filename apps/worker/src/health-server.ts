import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { ApiError } from "@chorus/contracts";
import { type Logger } from "@chorus/platform/logger";
import { metricsRequestAllowed, type WorkerMetrics } from "@chorus/platform/metrics";
import { describeListening, INSTANCE_HEADER, ListenError, listenOn } from "@chorus/platform/process";
import { type RedisClient } from "@chorus/platform/redis";
import type { Worker } from "bullmq";

export interface HealthServerOptions {
  host: string;
  /** 0: any free port (the bound one is logged and returned by `start()`). */
  port: number;
  /** When `port` is taken, take a free one (with a warning) instead of failing: for the default port. */
  freePortWhenTaken?: boolean;
  connection: Pick<RedisClient, "status">;
  workers: readonly Pick<Worker, "name" | "isRunning" | "closing">[];
  metrics: Pick<WorkerMetrics, "render" | "contentType">;
  /** METRICS_TOKEN: when set, /metrics needs `Authorization: Bearer <token>`. */
  metricsToken?: string | undefined;
  /** INSTANCE_ID: answered in the probes' X-Chorus-Instance header (npm start checks it is its own worker). */
  instanceId?: string | undefined;
  logger?: Logger;
}

export interface HealthServer {
  /** Resolves with the bound port once listening. */
  start(): Promise<number>;
  close(): Promise<void>;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" });
  res.end(JSON.stringify(body));
}

const sendError = (res: ServerResponse, error: ApiError) => sendJson(res, error.httpStatus, error.toEnvelope());

/**
 * Ready while Redis is connected and every BullMQ worker is running; a worker that has begun to
 * close reports not ready at once, so orchestrators stop counting on it during its drain.
 */
function readiness(options: HealthServerOptions) {
  const workers = options.workers.map((w) => ({ queue: w.name, running: w.isRunning() && !w.closing }));
  const ready = options.connection.status === "ready" && workers.length > 0 && workers.every((w) => w.running);
  return { ready, body: { status: ready ? "ready" : "unavailable", redis: options.connection.status, workers } };
}

async function handle(options: HealthServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? "/").split("?")[0];
  if (req.method !== "GET" && req.method !== "HEAD")
    return sendError(res, new ApiError("METHOD_NOT_ALLOWED", `${req.method ?? "?"} is not served here; use GET`));
  if (options.instanceId) res.setHeader(INSTANCE_HEADER, options.instanceId);
  if (path === "/healthz") return sendJson(res, 200, { status: "ok" });
  if (path === "/readyz") {
    const { ready, body } = readiness(options);
    return sendJson(res, ready ? 200 : 503, body);
  }
  if (path === "/metrics") {
    if (!metricsRequestAllowed(req.headers.authorization, options.metricsToken)) {
      return sendError(res, new ApiError("UNAUTHORIZED", "metrics need 'Authorization: Bearer <METRICS_TOKEN>'"));
    }
    const text = await options.metrics.render();
    res.writeHead(200, { "Content-Type": options.metrics.contentType, "Cache-Control": "no-store" });
    return void res.end(text);
  }
  sendError(res, new ApiError("NOT_FOUND", `no endpoint ${path ?? ""}; try /healthz, /readyz or /metrics`));
}

const SETTINGS = { port: "WORKER_HTTP_PORT", host: "WORKER_HTTP_HOST" };

async function listen(server: Server, host: string, port: number, logger: Logger | undefined): Promise<number> {
  const address = await listenOn(server, port, host, SETTINGS);
  logger?.info(`worker health server listening on ${describeListening(address)}`, {
    address: address.address,
    port: address.port,
  });
  return address.port;
}

/** The worker's own small HTTP port: probes for orchestrators and /metrics for Prometheus. No Express: three paths. */
export function createHealthServer(options: HealthServerOptions): HealthServer {
  const server: Server = createServer((req, res) => {
    handle(options, req, res).catch((error: unknown) => {
      options.logger?.error("health server error", { error: String(error) });
      if (!res.headersSent) sendError(res, new ApiError("INTERNAL_ERROR", "internal error"));
      else res.end();
    });
  });
  return {
    start: async () => {
      try {
        return await listen(server, options.host, options.port, options.logger);
      } catch (error) {
        if (!(error instanceof ListenError && error.code === "EADDRINUSE" && options.freePortWhenTaken)) throw error;
        options.logger?.warn(
          `port ${options.port} is in use (another worker on this host?): taking a free port instead; set WORKER_HTTP_PORT to choose one`,
        );
        return listen(server, options.host, 0, options.logger);
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        // Prometheus keeps connections alive; without this close() would wait for them to time out.
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
