import { ApiError, REQUEST_LIMITS } from "@chorus/contracts";
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";

const parseJson = express.json({ limit: REQUEST_LIMITS.maxBodyBytes, strict: false, type: () => true });

/** Requires a body (400 naming `body`) sent as `Content-Type: application/json` (415 otherwise) and parses it. */
export function jsonBody(): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const type = req.is("application/json"); // null: the request has no body at all
    if (type === null || req.headers["content-length"] === "0") {
      next(ApiError.invalidParameter("body", "object", "a JSON body is required"));
      return;
    }
    if (!type) {
      next(new ApiError("UNSUPPORTED_MEDIA_TYPE", "send the body as JSON with 'Content-Type: application/json'"));
      return;
    }
    parseJson(req, res, next);
  };
}

/** The JSON body, parsed as jsonBody() parses it, where a step reads it after others ran (admission). */
export function readJsonBody(req: Request, res: Response): Promise<unknown> {
  const parse = jsonBody();
  return new Promise((resolve, reject: (error: Error) => void) =>
    parse(req, res, (error?: unknown) => (error ? reject(error as Error) : resolve(req.body))),
  );
}
