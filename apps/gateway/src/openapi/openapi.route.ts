import type { IRouter } from "express";
import { buildOpenApiDocument } from "./openapi-document.js";

export const OPENAPI_PATH = "/openapi.json";

/**
 * `GET /openapi.json`: the document, built and serialized once when the app is built. Needs no API
 * key (it sits before the catch-all authentication, like the probes) and counts against no budget.
 */
export function addOpenApiRoute(router: IRouter): void {
  const body = JSON.stringify(buildOpenApiDocument());
  router.get(OPENAPI_PATH, (_req, res) => {
    res.setHeader("Cache-Control", "no-cache");
    res.type("application/json").send(body);
  });
}
