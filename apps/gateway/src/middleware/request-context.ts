import { randomUUID } from "node:crypto";
import type { Logger } from "@chorus/platform";
import type { NextFunction, Request, RequestHandler, Response } from "express";

const LOGGER = Symbol("logger");
type RequestWithLogger = Request & { [LOGGER]?: Logger };

/** The request's child logger (carries requestId, and keyId once authenticated). */
export function requestLogger(req: Request): Logger {
  const logger = (req as RequestWithLogger)[LOGGER];
  if (!logger) throw new Error("requestLogger() used before requestContext()");
  return logger;
}

export function setRequestLogger(req: Request, logger: Logger): void {
  (req as RequestWithLogger)[LOGGER] = logger;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Gives each request an id (the caller's X-Request-Id when it is sane), echoes it back, and logs
 * one line when the response is sent: method, route, status, duration. Never bodies or headers.
 */
export function requestContext(logger: Logger): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.headers["x-request-id"];
    const requestId = typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader("X-Request-Id", requestId);
    setRequestLogger(req, logger.child({ requestId }));
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      requestLogger(req).http("request", { method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10 });
    });
    next();
  };
}
