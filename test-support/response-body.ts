import type { ErrorEnvelope, SubmitResponse } from "@chorus/contracts";

/**
 * The `error` of an answer's error envelope (`{ error: { code, message, details? }, status: "error",
 * timestamp }`), typed: supertest types every body `any`. A type, not a check: the test's
 * expectations are what check the body.
 */
export function errorOf(res: { body: unknown }): ErrorEnvelope["error"] {
  return (res.body as ErrorEnvelope).error;
}

/** The id of the request that a POST /api/text/{model} accepted (its SubmitResponse). */
export function submittedId(res: { body: unknown }): string {
  return (res.body as SubmitResponse).id;
}
