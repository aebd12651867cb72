import { randomUUID } from "node:crypto";
import type { Logger } from "@chorus/platform/logger";
import type { GatewayMetrics } from "@chorus/platform/metrics";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { routeLabel } from "./route-label.js";

interface RequestContext {
  requestId: string;
  base: Logger;
  child?: Logger;
}

const CONTEXT = Symbol("requestContext");
type RequestWithContext = Request & { [CONTEXT]?: RequestContext };

/**
 * The request's child logger (carries requestId). Built on first use: most requests log nothing at
 * the default level, and a winston child per request is measurable on the hot path.
 */
export function requestLogger(req: Request): Logger {
  const context = (req as RequestWithContext)[CONTEXT];
  if (!context) throw new Error("requestLogger() used before requestContext()");
  context.child ??= context.base.child({ requestId: context.requestId });
  return context.child;
}

/**
 * An `http`-level line of the request's logger, only when that level is on: winston runs a line of
 * a disabled level through its whole log path before dropping it (~10 µs a submit, npm run bench).
 */
export function logHttp(req: Request, message: string, meta: Record<string, unknown>): void {
  const context = (req as RequestWithContext)[CONTEXT];
  if (context && !context.base.isLevelEnabled("http")) return;
  requestLogger(req).http(message, meta);
}

export function setRequestLogger(req: Request, logger: Logger): void {
  (req as RequestWithContext)[CONTEXT] = { requestId: "test", base: logger, child: logger };
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

const CUT = Symbol("cutByServer");

/**
 * Marks a response the server is about to cut short after its headers (a streamed answer whose
 * source failed): it is counted and logged as a 500, its headers' 200 notwithstanding.
 */
export function markCutShort(res: Response): void {
  (res as Response & { [CUT]?: true })[CUT] = true;
}

/**
 * Gives each request an id (the caller's X-Request-Id when it is sane) and echoes it back. When the
 * response is finished, counts and times it (`http_requests_total`, `http_request_duration_seconds`)
 * and, at the `http` level, logs one line: method, path, status, duration; never bodies or headers.
 * Mounted first, so 401s and 404s are counted too. One middleware and one `finish` listener for
 * both: each layer and listener a request passes is measurable on the hot path (npm run bench).
 */
export function requestContext(logger: Logger, metrics: Pick<GatewayMetrics, "recordHttpRequest">): RequestHandler {
  const accessLog = logger.isLevelEnabled("http");
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    const incoming = req.headers["x-request-id"];
    const requestId = typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader("X-Request-Id", requestId);
    (req as RequestWithContext)[CONTEXT] = { requestId, base: logger };
    // "close" comes after "finish", and also for a response cut short; one listener for both.
    res.on("close", () => {
      const cut = (res as Response & { [CUT]?: true })[CUT] === true;
      if (!res.writableFinished && !cut) return; // the client went away: no answer to count
      const status = cut ? 500 : res.statusCode;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // The route is read only now: the router has matched it by the time the response is finished.
      metrics.recordHttpRequest(req.method, routeLabel(req), status, seconds);
      if (accessLog)
        requestLogger(req).http("request", {
          method: req.method,
          path: req.path,
          status,
          ms: Math.round(seconds * 1e4) / 10,
          ...(cut ? { cut } : {}),
        });
    });
    next();
  };
}
