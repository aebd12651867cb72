import { ApiError, REQUEST_LIMITS } from "@chorus/contracts";
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";

const parseJson = express.json({ limit: REQUEST_LIMITS.maxBodyBytes, strict: false, type: () => true });

/** Requires `Content-Type: application/json` (415 otherwise) and parses the body. */
export function jsonBody(): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!req.is("application/json")) {
      next(new ApiError("UNSUPPORTED_MEDIA_TYPE", "send the body as JSON with 'Content-Type: application/json'"));
      return;
    }
    parseJson(req, res, next);
  };
}
