import type { Response } from "express";

/**
 * Answers with a JSON body, as `res.status(status).json(body)` does, on the hot paths (submit, poll).
 * Express's `res.json` re-parses and re-formats the Content-Type it has just set, looks up its
 * settings and checks freshness on every call; with ETags off none of that changes the answer, and
 * it was a measurable share of a status poll (npm run bench).
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.end(text);
}
