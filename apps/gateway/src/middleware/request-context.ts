import { randomUUID } from "node:crypto";
import type { Logger } from "@chorus/platform";
import type { NextFunction, Request, RequestHandler, Response } from "express";

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

export function setRequestLogger(req: Request, logger: Logger): void {
  (req as RequestWithContext)[CONTEXT] = { requestId: "test", base: logger, child: logger };
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Gives each request an id (the caller's X-Request-Id when it is sane) and echoes it back; at the
 * `http` level, logs one line per response: method, path, status, duration. Never bodies or headers.
 */
export function requestContext(logger: Logger): RequestHandler {
  const accessLog = logger.isLevelEnabled("http");
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.headers["x-request-id"];
    const requestId = typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader("X-Request-Id", requestId);
    (req as RequestWithContext)[CONTEXT] = { requestId, base: logger };
    if (accessLog) {
      const started = process.hrtime.bigint();
      res.on("finish", () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        requestLogger(req).http("request", { method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10 });
      });
    }
    next();
  };
}
